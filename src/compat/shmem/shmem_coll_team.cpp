// The typed and byte forms of the team collectives that move data (broadcast,
// collect, fcollect, alltoall, alltoalls), generated over the standard RMA types.
#include "compat/shmem/shmem_team.hpp"

using namespace interlace;
using namespace interlace::shmem::teams;

namespace {

int team_broadcast(const char* r, shmem_team_t t, void* d, const void* s, size_t n, size_t elem, int root) {
  return shmem::call(r, [&] {
    broadcast(team(t, r).comm, d, s, n, elem, root, /*update_root=*/true, r);
    return 0;
  });
}

using Move = void (*)(const Communicator&, void*, const void*, size_t, size_t, const char*);

int team_move(Move fn, const char* r, shmem_team_t t, void* d, const void* s, size_t n, size_t elem) {
  return shmem::call(r, [&] {
    fn(team(t, r).comm, d, s, n, elem, r);
    return 0;
  });
}

int team_alltoalls(const char* r, shmem_team_t t, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst,
                   size_t n, size_t elem) {
  return shmem::call(r, [&] {
    alltoalls(team(t, r).comm, d, s, dst, sst, n, elem, r);
    return 0;
  });
}

}  // namespace

extern "C" {

#define INTERLACE_SHMEM_DEF_MOVE(T, N)                                                  \
  int shmem_##N##_broadcast(shmem_team_t t, T* d, const T* s, size_t n, int root) {     \
    return team_broadcast("shmem_" #N "_broadcast", t, d, s, n, sizeof(T), root);       \
  }                                                                                     \
  int shmem_##N##_collect(shmem_team_t t, T* d, const T* s, size_t n) {                 \
    return team_move(collect, "shmem_" #N "_collect", t, d, s, n, sizeof(T));           \
  }                                                                                     \
  int shmem_##N##_fcollect(shmem_team_t t, T* d, const T* s, size_t n) {                \
    return team_move(fcollect, "shmem_" #N "_fcollect", t, d, s, n, sizeof(T));         \
  }                                                                                     \
  int shmem_##N##_alltoall(shmem_team_t t, T* d, const T* s, size_t n) {                \
    return team_move(alltoall, "shmem_" #N "_alltoall", t, d, s, n, sizeof(T));         \
  }                                                                                     \
  int shmem_##N##_alltoalls(shmem_team_t t, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, \
                            size_t n) {                                                 \
    return team_alltoalls("shmem_" #N "_alltoalls", t, d, s, dst, sst, n, sizeof(T));   \
  }
INTERLACE_SHMEM_RMA_TYPES(INTERLACE_SHMEM_DEF_MOVE)

int shmem_broadcastmem(shmem_team_t t, void* d, const void* s, size_t n, int root) {
  return team_broadcast("shmem_broadcastmem", t, d, s, n, 1, root);
}
int shmem_collectmem(shmem_team_t t, void* d, const void* s, size_t n) {
  return team_move(collect, "shmem_collectmem", t, d, s, n, 1);
}
int shmem_fcollectmem(shmem_team_t t, void* d, const void* s, size_t n) {
  return team_move(fcollect, "shmem_fcollectmem", t, d, s, n, 1);
}
int shmem_alltoallmem(shmem_team_t t, void* d, const void* s, size_t n) {
  return team_move(alltoall, "shmem_alltoallmem", t, d, s, n, 1);
}
int shmem_alltoallsmem(shmem_team_t t, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n) {
  return team_alltoalls("shmem_alltoallsmem", t, d, s, dst, sst, n, 1);
}

}  // extern "C"
