// One-sided regions: a rank's region is a named shared segment that the ranks of the
// host map, so a peer's put is a store into it. Unlike rings it is not pre-faulted
// (a symmetric heap is mostly untouched) and tmpfs keeps it sparse.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "fabric/shm/shm_fabric.hpp"
#include "interlace/core/clock.hpp"

namespace interlace::fabric::shm {

namespace {
std::string region_name(const std::string& job, int rank, uint32_t id) {
  return "/il-" + job + "-reg" + std::to_string(id) + "-" + std::to_string(rank);
}

void* map_shared(int fd, size_t len, const std::string& name) {
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  if (p == MAP_FAILED)
    throw_system_error("shm: mmap of region " + name + " (" + std::to_string(len) + " bytes)");
  return p;
}
}  // namespace

void* ShmFabric::expose_region(uint32_t id, size_t len) {
  const std::string name = region_name(job_, rank_, id);
  shm_unlink(name.c_str());  // a leftover of a crashed job with the same id
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) throw_system_error("shm: shm_open(" + name + ", O_CREAT)");
  if (ftruncate(fd, static_cast<off_t>(len)) != 0) {
    const int e = errno;
    close(fd);
    shm_unlink(name.c_str());
    errno = e;
    throw_system_error("shm: ftruncate(" + name + ", " + std::to_string(len) + ")");
  }
  void* p = nullptr;
  try {
    p = map_shared(fd, len, name);
  } catch (...) {
    close(fd);
    shm_unlink(name.c_str());
    throw;
  }
  close(fd);
  regions_.push_back(Region{id, rank_, Mapping(p, len), name});
  return p;
}

void* ShmFabric::map_region(int peer, uint32_t id, size_t len) {
  if (static_cast<unsigned>(peer) >= static_cast<unsigned>(size_)) return nullptr;
  for (Region& r : regions_)
    if (r.id == id && r.peer == peer) return r.map.data();
  const std::string name = region_name(job_, peer, id);
  const Deadline deadline = Deadline::after(cfg_.connect_timeout_s);
  for (;;) {
    const int fd = shm_open(name.c_str(), O_RDWR, 0600);
    if (fd >= 0) {
      struct stat st{};
      const bool sized = fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= len;
      if (sized) {
        void* p = nullptr;
        try {
          p = map_shared(fd, len, name);
        } catch (...) {
          close(fd);
          throw;
        }
        close(fd);
        regions_.push_back(Region{id, peer, Mapping(p, len), {}});
        return p;
      }
      close(fd);
    } else if (errno != ENOENT) {
      throw_system_error("shm: shm_open(" + name + ")");
    }
    if (peers_[peer].dead || departed(peer))
      throw_error(Errc::lost_peer, "shm: rank " + std::to_string(peer) +
                                       " left before exposing region " + std::to_string(id));
    if (deadline.expired())
      throw_error(Errc::timeout, "shm: rank " + std::to_string(peer) + " did not expose " + name +
                                     " within INTERLACE_CONNECT_TIMEOUT=" +
                                     std::to_string(cfg_.connect_timeout_s) + " s");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void ShmFabric::release_regions() noexcept {
  for (Region& r : regions_)
    if (!r.name.empty()) shm_unlink(r.name.c_str());
  regions_.clear();
}

}  // namespace interlace::fabric::shm
