/* pes: 1 2 3 4 8 */
/* The C11 type-generic interface: shmem_put/get/p/g/iput/put_nbi, shmem_atomic_*,
 * shmem_wait_until/test, with and without a context argument, for several types
 * (each call must pick the routine of its argument's type). */
#include "check.h"

static long gl[8];
static double gd[8];
static int gi;
static unsigned long gu;
static long long gll;

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  int right = (me + 1) % n, left = (me + n - 1) % n;
  long sl[8];
  double sd[8];
  for (int i = 0; i < 8; ++i) sl[i] = me * 100L + i, sd[i] = me + i / 4.0;

  shmem_put(gl, sl, 8, right);
  shmem_put(SHMEM_CTX_DEFAULT, gd, sd, 8, right);
  shmem_p(&gi, 5 + me, right);
  shmem_barrier_all();
  for (int i = 0; i < 8; ++i) CHECK_EQ(gl[i], left * 100L + i, "shmem_put(long)");
  for (int i = 0; i < 8; ++i) CHECK(gd[i] == left + i / 4.0, "shmem_put(ctx, double)[%d]", i);
  CHECK_EQ(gi, 5 + left, "shmem_p(int)");
  long rl[8];
  double rd[8];
  shmem_get(rl, gl, 8, right);
  shmem_get(SHMEM_CTX_DEFAULT, rd, gd, 8, right);
  CHECK_EQ(rl[7], me * 100L + 7, "shmem_get(long)");
  CHECK(rd[5] == me + 5 / 4.0, "shmem_get(ctx, double) %g", rd[5]);
  CHECK(shmem_g(&gd[2], right) == me + 0.5, "shmem_g(double)");
  CHECK_EQ(shmem_g(&gi, right), 5 + me, "shmem_g(int)");
  shmem_barrier_all();

  shmem_iput(gl, sl, 2, 1, 4, right); /* gl[0,2,4,6] = sl[0..3] */
  shmem_put_nbi(gd, sd, 2, right);
  shmem_quiet();
  shmem_barrier_all();
  CHECK_EQ(gl[6], left * 100L + 3, "shmem_iput(long)");
  long ig[4];
  shmem_iget(ig, gl, 1, 2, 4, right);
  CHECK_EQ(ig[3], me * 100L + 3, "shmem_iget(long)");
  shmem_barrier_all();

  /* atomics: the type picks the routine; values beyond 32 bits catch a wrong pick */
  gu = 0;
  gll = 0;
  shmem_barrier_all();
  shmem_atomic_add(&gu, 1ul << 33, 0);
  (void)shmem_atomic_fetch_add(&gll, 3LL << 32, 0);
  shmem_atomic_inc(&gll, 0);
  shmem_barrier_all();
  if (me == 0) {
    CHECK(gu == (unsigned long)n << 33, "shmem_atomic_add(ulong) %lu", gu);
    CHECK_EQ(gll, (long long)n * ((3LL << 32) + 1), "shmem_atomic_fetch_add(longlong)");
  }
  shmem_barrier_all();
  shmem_atomic_set(&gll, 10LL + me, right);
  shmem_barrier_all();
  CHECK_EQ(shmem_atomic_fetch(&gll, right), 10 + me, "shmem_atomic_fetch(longlong)");
  CHECK_EQ(shmem_atomic_swap(&gll, 20LL + me, right), 10 + me, "shmem_atomic_swap");
  CHECK_EQ(shmem_atomic_compare_swap(&gll, 20LL + me, 30LL + me, right), 20 + me,
           "shmem_atomic_compare_swap(longlong)");
  CHECK_EQ(shmem_atomic_fetch_inc(SHMEM_CTX_DEFAULT, &gll, right), 30 + me,
           "shmem_atomic_fetch_inc(ctx, longlong)");
  shmem_barrier_all();
  CHECK_EQ(gll, 31 + left, "longlong after the generic atomics");
  CHECK(shmem_atomic_swap(&gd[0], 2.5, me) == left + 0.0, "shmem_atomic_swap(double)");
  shmem_barrier_all();

  /* wait_until / test */
  gi = 0;
  shmem_barrier_all();
  shmem_atomic_set(&gi, me + 1, right);
  shmem_wait_until(&gi, SHMEM_CMP_EQ, left + 1);
  CHECK_EQ(shmem_test(&gi, SHMEM_CMP_EQ, left + 1), 1, "shmem_test(int)");
#if SHMEM_TEST_15
  /* generic forms added in 1.5 */
  long fl = -1;
  shmem_atomic_fetch_nbi(&fl, &gl[0], right);
  shmem_quiet();
  CHECK_EQ(fl, me * 100L, "shmem_atomic_fetch_nbi(long)");
  CHECK_EQ(shmem_wait_until_any(&gi, 1, NULL, SHMEM_CMP_EQ, left + 1), 0, "shmem_wait_until_any");
  long *sr = shmem_malloc(sizeof(long)), *dr = shmem_malloc(sizeof(long));
  *sr = me;
  shmem_barrier_all();
  shmem_sum_reduce(SHMEM_TEAM_WORLD, dr, sr, 1);
  CHECK_EQ(*dr, (long)n * (n - 1) / 2, "shmem_sum_reduce(long)");
  shmem_free(sr);
  shmem_free(dr);
#endif
  return check_finish("generic");
}
