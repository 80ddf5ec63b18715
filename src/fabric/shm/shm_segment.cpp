#include "fabric/shm/shm_segment.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabric/shm/shm_layout.hpp"
#include "interlace/core/error.hpp"

namespace interlace::fabric::shm {

Mapping& Mapping::operator=(Mapping&& o) noexcept {
  if (this != &o) {
    reset();
    addr_ = o.addr_;
    bytes_ = o.bytes_;
    o.addr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

void Mapping::reset() noexcept {
  if (addr_) munmap(addr_, bytes_);
  addr_ = nullptr;
  bytes_ = 0;
}

namespace {
// Closes the descriptor on every path; the mapping keeps the segment alive.
struct Fd {
  int fd;
  ~Fd() { if (fd >= 0) close(fd); }
};

Mapping map_fd(int fd, size_t bytes, const std::string& name) {
  // MAP_POPULATE: fault the pages in now so the first lap of a ring does not pay
  // page faults on the latency path.
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED)
    throw_system_error("shm: mmap of " + name + " (" + std::to_string(bytes) + " bytes)");
  return Mapping(p, bytes);
}
}  // namespace

Mapping create_segment(const std::string& name, size_t bytes) {
  Fd f{shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600)};
  if (f.fd < 0 && errno == EEXIST) {
    // Only this rank ever creates this name, so an existing one is a leftover of a
    // crashed job that reused the job id.
    shm_unlink(name.c_str());
    f.fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  }
  if (f.fd < 0) throw_system_error("shm: shm_open(" + name + ", O_CREAT)");
  if (ftruncate(f.fd, static_cast<off_t>(bytes)) != 0) {
    int e = errno;
    shm_unlink(name.c_str());
    errno = e;
    throw_system_error("shm: ftruncate(" + name + ", " + std::to_string(bytes) +
                       ") (is /dev/shm large enough?)");
  }
  try {
    return map_fd(f.fd, bytes, name);
  } catch (...) {
    shm_unlink(name.c_str());
    throw;
  }
}

OpenResult open_segment(const std::string& name, size_t min_bytes, Mapping* out) {
  Fd f{shm_open(name.c_str(), O_RDWR, 0600)};
  if (f.fd < 0) {
    if (errno == ENOENT) return OpenResult::missing;
    throw_system_error("shm: shm_open(" + name + ")");
  }
  struct stat st{};
  if (fstat(f.fd, &st) != 0) throw_system_error("shm: fstat(" + name + ")");
  if (static_cast<size_t>(st.st_size) < min_bytes) return OpenResult::too_small;
  *out = map_fd(f.fd, static_cast<size_t>(st.st_size), name);
  return OpenResult::ok;
}

void unlink_segment(const std::string& name) noexcept { shm_unlink(name.c_str()); }

std::string sanitize_job(const std::string& job_id) {
  if (job_id.empty()) throw_error(Errc::invalid_argument, "shm: empty job_id");
  std::string s = job_id;
  for (char& c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  // NAME_MAX is 255; leave room for "/il-", "-ctl-" and two rank numbers.
  if (s.size() > 200)
    throw_error(Errc::invalid_argument,
                "shm: job_id of " + std::to_string(s.size()) + " characters is too long (max 200)");
  return s;
}

std::string ctl_name(const std::string& job, int rank) {
  return "/il-" + job + "-ctl-" + std::to_string(rank);
}

std::string ring_name(const std::string& job, int src, int dst) {
  return "/il-" + job + "-" + std::to_string(src) + "-" + std::to_string(dst);
}

}  // namespace interlace::fabric::shm
