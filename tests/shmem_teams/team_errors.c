/* pes: 2 */
/* Bad arguments end the job with a message that names the routine and the value.
 * argv[1] picks the mistake; every PE makes it (tests/python/test_shmem_teams.py
 * checks the message and the exit status). */
#include <string.h>

#include "check.h"

static long psync[SHMEM_BCAST_SYNC_SIZE];
static int pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];

int main(int argc, char** argv) {
  shmem_init();
  int npes = shmem_n_pes();
  static long s[64], d[64];
  static int a[8], b[8];
  const char* what = argc > 1 ? argv[1] : "";
  for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
  if (!strcmp(what, "root")) {
    shmem_long_broadcast(SHMEM_TEAM_WORLD, d, s, 1, npes);
  } else if (!strcmp(what, "invalid_team")) {
    shmem_team_sync(SHMEM_TEAM_INVALID);
  } else if (!strcmp(what, "destroyed")) {
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
    shmem_team_destroy(t);
    shmem_team_my_pe(t);
  } else if (!strcmp(what, "nelems")) {
    shmem_long_fcollect(SHMEM_TEAM_WORLD, d, s, (size_t)-1);
  } else if (!strcmp(what, "stride")) {
    shmem_long_alltoalls(SHMEM_TEAM_WORLD, d, s, 0, 1, 1);
  } else if (!strcmp(what, "active_set")) {
    shmem_broadcast64(d, s, 1, 0, 0, 0, npes + 1, psync);
  } else if (!strcmp(what, "not_member")) {
    shmem_broadcast64(d, s, 1, 0, 0, 0, 1, psync);  /* PE 1 is not in the set of PE 0 */
  } else if (!strcmp(what, "overlap")) {
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, a + 1, a, 4);
  } else if (!strcmp(what, "nreduce")) {
    shmem_int_sum_to_all(b, a, -1, 0, 0, npes, pwrk, psync);
  } else if (!strcmp(what, "destroy_world")) {
    shmem_team_destroy(SHMEM_TEAM_WORLD);
  } else if (!strcmp(what, "config_mask")) {
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 1L << 5, &t);
  } else {
    fprintf(stderr, "FAIL: unknown case '%s'\n", what);
    shmem_global_exit(2);
  }
  printf("FAIL: case '%s' returned\n", what);
  shmem_finalize();
  return 0;
}
