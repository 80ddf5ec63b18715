/* pes: 1 2 3 4 8 */
/* Point-to-point synchronization on one variable: wait_until and test with every
 * comparison for every sync type (the left neighbour writes the value that makes the
 * condition true), and the deprecated shmem_wait / shmem_TYPE_wait. The vector forms
 * (all/any/some) are in sync_vector.c. */
#include "check.h"
#include "sync_types.h"

/* comparison, its value, and the value the left neighbour writes (the variable
 * starts at 100, where the condition is false) */
static const struct { int cmp, value, put; const char *name; } conds[] = {
    {SHMEM_CMP_EQ, 7, 7, "EQ"},   {SHMEM_CMP_NE, 100, 5, "NE"},
    {SHMEM_CMP_GT, 100, 101, "GT"}, {SHMEM_CMP_GE, 200, 200, "GE"},
    {SHMEM_CMP_LT, 100, 99, "LT"},  {SHMEM_CMP_LE, 50, 50, "LE"},
};

#define TEST_SYNC(T, NAME) \
  static T s_##NAME; \
  static void sync_##NAME(int me, int n) { \
    int right = (me + 1) % n; \
    for (int c = 0; c < 6; ++c) { \
      s_##NAME = (T)100; \
      CHECK_EQ(shmem_##NAME##_test(&s_##NAME, conds[c].cmp, (T)conds[c].value), 0, \
               #NAME " test before the write"); \
      shmem_barrier_all(); \
      shmem_##NAME##_atomic_set(&s_##NAME, (T)conds[c].put, right); \
      shmem_##NAME##_wait_until(&s_##NAME, conds[c].cmp, (T)conds[c].value); \
      CHECK(s_##NAME == (T)conds[c].put, #NAME " wait_until %s: %lld", conds[c].name, \
            (long long)s_##NAME); \
      CHECK_EQ(shmem_##NAME##_test(&s_##NAME, conds[c].cmp, (T)conds[c].value), 1, \
               #NAME " test after the write"); \
      shmem_barrier_all(); \
    } \
  }
#if SHMEM_TEST_15
SHMEM_TEST_SYNC_TYPES(TEST_SYNC)
#else /* OSHMEM 1.4 has no atomic set for the fixed-width types: only int and long */
TEST_SYNC(int, int)
TEST_SYNC(long, long)
#endif

static long dw;
static int dwi;

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  int right = (me + 1) % n, left = (me + n - 1) % n;
#define RUN_SYNC(T, NAME) sync_##NAME(me, n);
#if SHMEM_TEST_15
  SHMEM_TEST_SYNC_TYPES(RUN_SYNC)
#else
  sync_int(me, n);
  sync_long(me, n);
#endif
  /* the left neighbour writes after a delay of shmem calls, so the wait really waits */
  for (int round = 1; round <= 20; ++round) {
    shmem_barrier_all();
    for (int i = 0; i < round % 4; ++i) (void)shmem_long_g(&dw, right);
    shmem_long_atomic_set(&dw, round, right);
    shmem_long_wait_until(&dw, SHMEM_CMP_EQ, round);
  }
  shmem_barrier_all();

  /* deprecated: shmem_wait(ivar, value) returns once ivar != value */
  dw = -1;
  dwi = -1;
  shmem_barrier_all();
  shmem_long_atomic_set(&dw, 10 + me, right);
  shmem_int_atomic_set(&dwi, 20 + me, right);
  shmem_wait(&dw, -1);
  shmem_int_wait(&dwi, -1);
  shmem_long_wait(&dw, -1);
  CHECK_EQ(dw, 10 + left, "shmem_wait");
  CHECK_EQ(dwi, 20 + left, "shmem_int_wait");
  return check_finish("sync");
}
