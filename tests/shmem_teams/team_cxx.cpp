/* pes: 1 2 3 4 8 */
/* The C++ overloads of the type-generic names (shmem_broadcast, shmem_fcollect,
 * shmem_sum_reduce, ..., shmem_sync(team) beside the 1.4 shmem_sync) resolve to the
 * typed routines of the argument's type. */
#include "check.h"

static long src[64], dst[64];
static long psync[SHMEM_BARRIER_SYNC_SIZE];

int main() {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  for (int i = 0; i < 64; ++i) src[i] = me * 10 + i;
  for (long& p : psync) p = SHMEM_SYNC_VALUE;
  shmem_sync(SHMEM_TEAM_WORLD);
  CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, n - 1) == 0, "broadcast");
  for (int i = 0; i < 4; ++i) CHECK(dst[i] == (n - 1) * 10 + i, "broadcast dst[%d] = %ld", i, dst[i]);
  CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, dst, src, 1) == 0, "fcollect");
  for (int k = 0; k < n; ++k) CHECK(dst[k] == k * 10, "fcollect dst[%d] = %ld", k, dst[k]);
  unsigned u = 1u << me, uo = 0;
  shmem_or_reduce(SHMEM_TEAM_WORLD, &uo, &u, 1);
  CHECK(uo == (n >= 32 ? ~0u : (1u << n) - 1), "or_reduce %x", uo);
  double d = me, ds = 0;
  shmem_sum_reduce(SHMEM_TEAM_WORLD, &ds, &d, 1);
  CHECK(ds == n * (n - 1) / 2.0, "double sum_reduce %g", ds);
  __complex__ double z = 1.0 * me, zs = 0;
  shmem_sum_reduce(SHMEM_TEAM_WORLD, &zs, &z, 1);
  CHECK(__real__ zs == n * (n - 1) / 2.0, "complexd sum_reduce");
  shmem_sync(0, 0, n, psync);  // the 1.4 form keeps its name
  shmem_barrier_all();
  if (me == 0) printf("OK team_cxx\n");
  shmem_finalize();
  return 0;
}
