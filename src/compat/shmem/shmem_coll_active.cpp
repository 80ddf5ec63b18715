// The deprecated active-set collectives (OpenSHMEM 1.4 names with PE_start,
// logPE_stride, PE_size and pSync). pSync is never touched: the active set's
// communicator (cached per triplet) keeps the collective state.
#include "compat/shmem/shmem_team.hpp"

using namespace interlace;
using namespace interlace::shmem::teams;

namespace {

using Move = void (*)(const Communicator&, void*, const void*, size_t, size_t, const char*);

void set_move(Move fn, const char* r, void* d, const void* s, size_t n, size_t elem, int start,
              int log_stride, int size) {
  shmem::call(r, [&] { fn(active_set(start, log_stride, size, r), d, s, n, elem, r); });
}

}  // namespace

extern "C" {

#define INTERLACE_SHMEM_DEF_SIZED(B)                                                    \
  void shmem_broadcast##B(void* d, const void* s, size_t n, int root, int start, int ls, \
                          int size, long*) {                                            \
    const char* r = "shmem_broadcast" #B;                                               \
    shmem::call(r, [&] {                                                                \
      broadcast(active_set(start, ls, size, r), d, s, n, B / 8, root, false, r);       \
    });                                                                                 \
  }                                                                                     \
  void shmem_collect##B(void* d, const void* s, size_t n, int start, int ls, int size, long*) { \
    set_move(collect, "shmem_collect" #B, d, s, n, B / 8, start, ls, size);             \
  }                                                                                     \
  void shmem_fcollect##B(void* d, const void* s, size_t n, int start, int ls, int size, long*) { \
    set_move(fcollect, "shmem_fcollect" #B, d, s, n, B / 8, start, ls, size);           \
  }                                                                                     \
  void shmem_alltoall##B(void* d, const void* s, size_t n, int start, int ls, int size, long*) { \
    set_move(alltoall, "shmem_alltoall" #B, d, s, n, B / 8, start, ls, size);           \
  }                                                                                     \
  void shmem_alltoalls##B(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                          int start, int ls, int size, long*) {                         \
    const char* r = "shmem_alltoalls" #B;                                               \
    shmem::call(r, [&] {                                                                \
      alltoalls(active_set(start, ls, size, r), d, s, dst, sst, n, B / 8, r);           \
    });                                                                                 \
  }
INTERLACE_SHMEM_DEF_SIZED(32)
INTERLACE_SHMEM_DEF_SIZED(64)

}  // extern "C"
