/* pes: 1 2 3 4 8 */
/* Bitwise atomics (fetch_and/or/xor, and/or/xor) for every bitwise AMO type, and the
 * deprecated AMO names (shmem_int_fadd, _finc, _add, _inc, _cswap, _swap, _fetch,
 * _set) that old programs and benchmarks still call. */
#include "check.h"
#include "amo_types.h"

#define TEST_BIT(T, NAME) \
  static T b_##NAME; \
  static void bit_##NAME(int me, int n) { \
    int right = (me + 1) % n, left = (me + n - 1) % n; \
    T *h = shmem_malloc(sizeof(T)); \
    T *targets[2] = {&b_##NAME, h}; \
    for (int t = 0; t < 2; ++t) { \
      T *x = targets[t]; \
      const char *what = t ? #NAME " heap" : #NAME " static"; \
      T start = (T)(0xF0F0u ^ (unsigned)me), tmp_; \
      (void)tmp_; \
      shmem_##NAME##_p(x, start, right); /* atomic set of int32 etc. is 1.5 */ \
      shmem_barrier_all(); \
      T old = FETCH_BIT(NAME, and, x, (T)0xFF0Fu, right); \
      CHECK(old == start, "%s fetch_and old %llx", what, (unsigned long long)old); \
      old = FETCH_BIT(NAME, or, x, (T)0x0300u, right); \
      CHECK(old == (T)(start & 0xFF0Fu), "%s fetch_or old %llx", what, (unsigned long long)old); \
      old = FETCH_BIT(NAME, xor, x, (T)0x1001u, right); \
      T want = (T)((start & 0xFF0Fu) | 0x0300u); \
      CHECK(old == want, "%s fetch_xor old %llx", what, (unsigned long long)old); \
      want ^= (T)0x1001u; \
      shmem_##NAME##_atomic_and(x, (T)0x7FFFu, right); \
      shmem_##NAME##_atomic_or(x, (T)0x8000u, right); \
      shmem_##NAME##_atomic_xor(x, (T)0x0005u, right); \
      want = (T)(((want & 0x7FFFu) | 0x8000u) ^ 0x0005u); \
      shmem_barrier_all(); \
      T lstart = (T)(0xF0F0u ^ (unsigned)left); \
      T lwant = (T)((((((lstart & 0xFF0Fu) | 0x0300u) ^ 0x1001u) & 0x7FFFu) | 0x8000u) ^ 0x5u); \
      CHECK(*x == lwant, "%s after the ops: %llx, want %llx", what, (unsigned long long)*x, \
            (unsigned long long)lwant); \
      CHECK(shmem_##NAME##_g(x, right) == want, "%s fetch of the result", what); \
      shmem_barrier_all(); \
      /* concurrent: every PE sets its bit on PE 0, flips bit 20+me twice, clears bit 40 */ \
      *x = (T)(1ull << 30); \
      shmem_barrier_all(); \
      shmem_##NAME##_atomic_or(x, (T)(1ull << me), 0); \
      shmem_##NAME##_atomic_xor(x, (T)(1ull << (me + 20)), 0); \
      (void)FETCH_BIT(NAME, xor, x, (T)(1ull << (me + 20)), 0); \
      (void)FETCH_BIT(NAME, and, x, (T)~(T)(1ull << 30), 0); \
      shmem_barrier_all(); \
      if (me == 0) \
        CHECK(*x == (T)((1ull << n) - 1), "%s bits of all PEs: %llx", what, \
              (unsigned long long)*x); \
      shmem_barrier_all(); \
    } \
    shmem_free(h); \
  }
SHMEM_TEST_AMO_BIT(TEST_BIT)

static int di;
static long dl;
static long long dll;
static float df;
static double dd;

#define TEST_DEPRECATED(T, NAME, var) \
  do { \
    shmem_##NAME##_set(&var, (T)(10 + me), right); \
    shmem_barrier_all(); \
    CHECK_EQ(var, 10 + left, #NAME "_set"); \
    shmem_barrier_all(); \
    CHECK_EQ(shmem_##NAME##_fetch(&var, right), 10 + me, #NAME "_fetch"); \
    CHECK_EQ(shmem_##NAME##_swap(&var, (T)(20 + me), right), 10 + me, #NAME "_swap"); \
    if (SHMEM_TEST_CSWAP_OK(T)) { \
      CHECK_EQ(shmem_##NAME##_cswap(&var, (T)(20 + me), (T)(30 + me), right), 20 + me, \
               #NAME "_cswap"); \
    } else { \
      shmem_##NAME##_set(&var, (T)(30 + me), right); \
    } \
    CHECK_EQ(shmem_##NAME##_fadd(&var, (T)4, right), 30 + me, #NAME "_fadd"); \
    CHECK_EQ(shmem_##NAME##_finc(&var, right), 34 + me, #NAME "_finc"); \
    shmem_##NAME##_add(&var, (T)3, right); \
    shmem_##NAME##_inc(&var, right); \
    shmem_barrier_all(); \
    CHECK_EQ(var, 39 + left, #NAME " after the deprecated ops"); \
    shmem_barrier_all(); \
  } while (0)

#define TEST_DEPRECATED_FP(T, NAME, var) \
  do { \
    shmem_##NAME##_set(&var, (T)(0.5 + me), right); \
    shmem_barrier_all(); \
    CHECK(var == (T)(0.5 + left), #NAME "_set: %g", (double)var); \
    shmem_barrier_all(); \
    CHECK(shmem_##NAME##_fetch(&var, right) == (T)(0.5 + me), #NAME "_fetch"); \
    CHECK(shmem_##NAME##_swap(&var, (T)-1.5, right) == (T)(0.5 + me), #NAME "_swap"); \
    shmem_barrier_all(); \
    CHECK(var == (T)-1.5, #NAME " after swap: %g", (double)var); \
  } while (0)

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  int right = (me + 1) % n, left = (me + n - 1) % n;
#define RUN_BIT(T, NAME) bit_##NAME(me, n);
  SHMEM_TEST_AMO_BIT(RUN_BIT)
  TEST_DEPRECATED(int, int, di);
  TEST_DEPRECATED(long, long, dl);
  TEST_DEPRECATED(long long, longlong, dll);
  TEST_DEPRECATED_FP(float, float, df);
  TEST_DEPRECATED_FP(double, double, dd);
  return check_finish("amo_bitwise");
}
