/* pes: 1 2 3 4 8 */
/* Team collectives (OpenSHMEM 1.5) on SHMEM_TEAM_WORLD and on the team of even PEs:
 * sync, sync_all, barrier_all, broadcast(mem), collect(mem), fcollect(mem), alltoall,
 * alltoalls, and and/or/xor/max/min/sum/prod reductions, each checked element by
 * element. OSHMEM (1.4) has no teams: there it only prints OK (coll_deprecated.c
 * covers the active-set forms on both). */
#include "check.h"

#if SHMEM_TEST_15
#define E 5 /* elements per PE */

/* Symmetric buffers, allocated by every PE (shmem_malloc is collective over the world,
 * so a team's members cannot allocate on their own). */
static long *src, *dst;
static int *is, *id;
static unsigned long *us, *ud;
static double *ds, *dd;

static void on_team(shmem_team_t t, const char *tn) {
  int me = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
  for (int i = 0; i < E * n; ++i) src[i] = me * 1000L + i;

  for (int root = 0; root < n; root += (n > 2 ? n - 1 : 1)) {
    for (int i = 0; i < E; ++i) dst[i] = -1;
    shmem_team_sync(t);
    CHECK_EQ(shmem_long_broadcast(t, dst, src, E, root), 0, "broadcast return");
    if (me != root) /* 1.4 left the root's dest alone; only the others are checked */
      for (int i = 0; i < E; ++i) CHECK_EQ(dst[i], root * 1000L + i, tn);
    shmem_team_sync(t);
    CHECK_EQ(shmem_broadcastmem(t, dst, src, 3, root), 0, "broadcastmem return");
    long want = root * 1000L; /* 3 bytes of the root's src[0] */
    if (me != root) CHECK_EQ(memcmp(dst, &want, 3), 0, "broadcastmem bytes");
  }
  shmem_team_sync(t);

  /* fcollect: E from each; collect: me + 1 from each, concatenated in team order */
  CHECK_EQ(shmem_long_fcollect(t, dst, src, E), 0, "fcollect return");
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < E; ++i) CHECK_EQ(dst[p * E + i], p * 1000L + i, "fcollect element");
  shmem_team_sync(t);
  CHECK_EQ(shmem_long_collect(t, dst, src, (size_t)me + 1), 0, "collect return");
  for (int p = 0, k = 0; p < n; ++p)
    for (int i = 0; i <= p; ++i, ++k) CHECK_EQ(dst[k], p * 1000L + i, "collect element");
  shmem_team_sync(t);
  CHECK_EQ(shmem_fcollectmem(t, dst, src, 2 * sizeof(long)), 0, "fcollectmem return");
  for (int p = 0; p < n; ++p) CHECK_EQ(dst[2 * p + 1], p * 1000L + 1, "fcollectmem element");
  shmem_team_sync(t);
  CHECK_EQ(shmem_collectmem(t, dst, src, sizeof(long)), 0, "collectmem return");
  for (int p = 0; p < n; ++p) CHECK_EQ(dst[p], p * 1000L, "collectmem element");
  shmem_team_sync(t);

  /* alltoall: block p of my source goes to PE p; alltoalls with strides 2 and 3 */
  CHECK_EQ(shmem_long_alltoall(t, dst, src, E), 0, "alltoall return");
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < E; ++i) CHECK_EQ(dst[p * E + i], p * 1000L + me * E + i, "alltoall");
  shmem_team_sync(t);
  for (int i = 0; i < E * 64; ++i) dst[i] = -1;
  shmem_team_sync(t);
  /* dst stride 2, src stride 3, 2 elements per PE: element j of block p sits at
   * index (p*2 + j)*3 in source and (p*2 + j)*2 in dest */
  for (int i = 0; i < 3 * 2 * n; ++i) src[i] = me * 1000L + i;
  shmem_team_sync(t);
  CHECK_EQ(shmem_long_alltoalls(t, dst, src, 2, 3, 2), 0, "alltoalls return");
  for (int p = 0; p < n; ++p)
    for (int j = 0; j < 2; ++j)
      CHECK_EQ(dst[(p * 2 + j) * 2], p * 1000L + (me * 2 + j) * 3, "alltoalls element");
  shmem_team_sync(t);

  /* reductions */
  for (int i = 0; i < 4; ++i) is[i] = (me + 1) * (i + 1);
  us[0] = us[1] = us[2] = 1ul << me;
  ds[0] = me + 0.5;
  ds[1] = -me;
  shmem_team_sync(t);
  int sum = n * (n + 1) / 2;
  shmem_int_sum_reduce(t, id, is, 4);
  for (int i = 0; i < 4; ++i) CHECK_EQ(id[i], sum * (i + 1), "int_sum_reduce");
  shmem_int_max_reduce(t, id, is, 4);
  for (int i = 0; i < 4; ++i) CHECK_EQ(id[i], n * (i + 1), "int_max_reduce");
  shmem_int_min_reduce(t, id, is, 4);
  for (int i = 0; i < 4; ++i) CHECK_EQ(id[i], i + 1, "int_min_reduce");
  for (int i = 0; i < 4; ++i) is[i] = (me % 2) ? 2 : 1;
  shmem_team_sync(t);
  shmem_int_prod_reduce(t, id, is, 4);
  CHECK_EQ(id[3], 1 << (n / 2), "int_prod_reduce");
  shmem_ulong_or_reduce(t, ud, us, 3);
  CHECK_EQ(ud[0], (1ul << n) - 1, "ulong_or_reduce");
  shmem_ulong_and_reduce(t, ud, us, 3);
  CHECK_EQ(ud[1], n == 1 ? 1ul : 0ul, "ulong_and_reduce");
  shmem_ulong_xor_reduce(t, ud, us, 3);
  CHECK_EQ(ud[2], (1ul << n) - 1, "ulong_xor_reduce");
  shmem_double_sum_reduce(t, dd, ds, 2);
  CHECK(dd[0] == n * (n - 1) / 2.0 + 0.5 * n, "double_sum_reduce %g", dd[0]);
  shmem_double_min_reduce(t, dd, ds, 2);
  CHECK(dd[1] == -(n - 1.0), "double_min_reduce %g", dd[1]);
  /* in place: dest == source */
  for (int i = 0; i < 4; ++i) is[i] = me;
  shmem_team_sync(t);
  shmem_int_sum_reduce(t, is, is, 4);
  CHECK_EQ(is[2], n * (n - 1) / 2, "int_sum_reduce in place");

  shmem_team_sync(t);
}

static long counter;

static void run(int me, int n) {
  src = shmem_malloc(E * 64 * sizeof(long));
  dst = shmem_malloc(E * 64 * sizeof(long));
  is = shmem_malloc(4 * sizeof(int));
  id = shmem_malloc(4 * sizeof(int));
  us = shmem_malloc(3 * sizeof(unsigned long));
  ud = shmem_malloc(3 * sizeof(unsigned long));
  ds = shmem_malloc(2 * sizeof(double));
  dd = shmem_malloc(2 * sizeof(double));
  on_team(SHMEM_TEAM_WORLD, "world broadcast");
  shmem_team_t ev;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &ev);
  if (ev != SHMEM_TEAM_INVALID) {
    on_team(ev, "evens broadcast");
    shmem_team_destroy(ev);
  }
  /* sync_all and barrier_all: every PE's atomic is visible after barrier_all */
  shmem_long_atomic_inc(&counter, 0);
  shmem_barrier_all();
  if (me == 0) CHECK_EQ(counter, n, "counter after barrier_all");
  shmem_sync_all();
  shmem_team_sync(SHMEM_TEAM_WORLD);
  shmem_free(src), shmem_free(dst), shmem_free(is), shmem_free(id);
  shmem_free(us), shmem_free(ud), shmem_free(ds), shmem_free(dd);
}
#endif

int main(void) {
  check_begin();
  shmem_init();
#if SHMEM_TEST_15
  run(shmem_my_pe(), shmem_n_pes());
#endif
  return check_finish("coll");
}
