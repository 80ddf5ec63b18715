// The data-moving collectives of shmem.h on a communicator (a team's or an active
// set's), run by the collective engine on bytes; and the synchronization routines.
// Nothing here needs symmetric memory: the engine moves the data by message, so
// source and dest may be any memory of the right size (OpenSHMEM asks for symmetric
// objects; interlace does not rely on it).
#include <algorithm>
#include <cstring>
#include <vector>

#include "compat/shmem/shmem_team.hpp"

namespace interlace::shmem::teams {

namespace {

constexpr size_t kMaxBytes = size_t{1} << 48;

void check_root(const Communicator& c, int root) {
  if (root < 0 || root >= c.size())
    throw Error(Errc::invalid_rank, "PE_root " + std::to_string(root) + " is out of range for a team of " +
                                        std::to_string(c.size()) + " PEs");
}

void check_buf(const void* p, size_t bytes, const char* name) {
  if (bytes && !p) throw Error(Errc::invalid_argument, std::string(name) + " is NULL");
}

void check_stride(ptrdiff_t s, const char* name) {
  if (s < 1) throw Error(Errc::invalid_argument, std::string(name) + " " + std::to_string(s) +
                                                    " must be at least 1");
  if (static_cast<size_t>(s) > kMaxBytes)
    throw Error(Errc::invalid_count, std::string(name) + " " + std::to_string(s) +
                                         " strides beyond the 2^48 bytes a PE can address");
}

}  // namespace

size_t bytes_of(size_t nelems, size_t elem, const char* what) {
  if (nelems > kMaxBytes / elem)
    throw Error(Errc::invalid_count, std::string(what) + " " + std::to_string(nelems) + " (" +
                                         std::to_string(static_cast<ptrdiff_t>(nelems)) +
                                         " as a signed value) of " + std::to_string(elem) +
                                         "-byte elements exceeds the 2^48 bytes a PE can address");
  return nelems * elem;
}

void broadcast(const Communicator& c, void* dest, const void* src, size_t nelems, size_t elem,
               int root, bool update_root, const char*) {
  const size_t bytes = bytes_of(nelems, elem, "nelems");
  check_root(c, root);
  if (bytes == 0) return;  // every PE passes the same nelems
  if (c.rank() != root) {
    check_buf(dest, bytes, "dest");
    coll::bcast(c, dest, bytes, Datatype::bytes, root);
    return;
  }
  check_buf(src, bytes, "source");
  if (!update_root) {  // active sets leave the root's dest alone (OpenSHMEM 1.4)
    coll::bcast(c, const_cast<void*>(src), bytes, Datatype::bytes, root);
    return;
  }
  check_buf(dest, bytes, "dest");
  if (dest != src) std::memmove(dest, src, bytes);
  coll::bcast(c, dest, bytes, Datatype::bytes, root);
}

void collect(const Communicator& c, void* dest, const void* src, size_t nelems, size_t elem,
             const char*) {
  const uint64_t mine = bytes_of(nelems, elem, "nelems");
  check_buf(src, mine, "source");
  const size_t n = static_cast<size_t>(c.size());
  std::vector<uint64_t> got(n);
  coll::allgather(c, &mine, got.data(), 1, Datatype::uint64);
  std::vector<size_t> counts(n), displs(n);
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    counts[i] = got[i];
    displs[i] = total;
    total += got[i];
  }
  if (total == 0) return;
  check_buf(dest, total, "dest");
  coll::allgatherv(c, src, mine, dest, counts, displs, Datatype::bytes);
}

void fcollect(const Communicator& c, void* dest, const void* src, size_t nelems, size_t elem,
              const char*) {
  const size_t bytes = bytes_of(nelems, elem, "nelems");
  bytes_of(nelems * static_cast<size_t>(c.size()), elem, "nelems times the team size");
  if (bytes == 0) return;
  check_buf(src, bytes, "source");
  check_buf(dest, bytes, "dest");
  coll::allgather(c, src, dest, bytes, Datatype::bytes);
}

void alltoall(const Communicator& c, void* dest, const void* src, size_t nelems, size_t elem,
              const char*) {
  const size_t bytes = bytes_of(nelems, elem, "nelems");
  bytes_of(nelems * static_cast<size_t>(c.size()), elem, "nelems times the team size");
  if (bytes == 0) return;
  check_buf(src, bytes, "source");
  check_buf(dest, bytes, "dest");
  coll::alltoall(c, src, dest, bytes, Datatype::bytes);
}

void alltoalls(const Communicator& c, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst,
               size_t nelems, size_t elem, const char* routine) {
  check_stride(dst, "dst");
  check_stride(sst, "sst");
  if (dst == 1 && sst == 1) return alltoall(c, dest, src, nelems, elem, routine);
  const size_t n = static_cast<size_t>(c.size());
  const size_t items = bytes_of(nelems, 1, "nelems") * n;  // elements per PE in all blocks
  const size_t span = std::max(dst, sst);
  bytes_of(items, elem * span, "nelems times the team size and stride");
  if (items == 0) return;
  check_buf(src, items, "source");
  check_buf(dest, items, "dest");
  // Packed through one contiguous alltoall: element e of the block for PE j sits at
  // source[(j * nelems + e) * sst] and lands at dest[(k * nelems + e) * dst] on PE j.
  std::vector<std::byte> out(items * elem), in(items * elem);
  const auto* s = static_cast<const std::byte*>(src);
  auto* d = static_cast<std::byte*>(dest);
  for (size_t i = 0; i < items; ++i) std::memcpy(&out[i * elem], s + i * sst * elem, elem);
  coll::alltoall(c, out.data(), in.data(), nelems * elem, Datatype::bytes);
  for (size_t i = 0; i < items; ++i) std::memcpy(d + i * dst * elem, &in[i * elem], elem);
}

}  // namespace interlace::shmem::teams

using namespace interlace;
using namespace interlace::shmem::teams;

extern "C" {

int shmem_team_sync(shmem_team_t t) {
  return shmem::call("shmem_team_sync", [&] {
    coll::barrier(team(t, "shmem_team_sync").comm);
    return 0;
  });
}

void shmem_sync_all(void) {
  shmem::call("shmem_sync_all", [] { coll::barrier(team(SHMEM_TEAM_WORLD, "shmem_sync_all").comm); });
}

void shmem_barrier_all(void) {
  shmem::call("shmem_barrier_all", [] { shmem::world_barrier(); });
}

void shmem_barrier(int start, int log_stride, int size, long*) {
  shmem::call("shmem_barrier", [&] {
    Communicator c = active_set(start, log_stride, size, "shmem_barrier");
    shmem::pgas("shmem_barrier").quiet_all();  // completes this PE's puts, as barrier_all does
    coll::barrier(c);
  });
}

void shmem_sync(int start, int log_stride, int size, long*) {
  shmem::call("shmem_sync", [&] { coll::barrier(active_set(start, log_stride, size, "shmem_sync")); });
}

}  // extern "C"
