/* pes: 1 2 3 4 8 */
/* Typed RMA for every standard RMA type: put/get/p/g, iput/iget (strided) and the
 * nbi forms with quiet, to the right neighbour of a ring, into a static global and
 * into the symmetric heap. Every phase writes new values (a salt), so stale data
 * from an earlier phase is caught. */
#include "check.h"
#include "rma_types.h"

#define N 17

/* arr[i*stride] must be check_val(from, base + i*sstride, salt) for i < len */
#define CHECK_ARR(arr, from, len, stride, salt, base, sstride, what) \
  for (int i_ = 0; i_ < (len); ++i_) { \
    long long g_ = (long long)(arr)[i_ * (stride)]; \
    long long w_ = check_val(from, (base) + (long)i_ * (sstride), salt); \
    if (g_ != w_) { \
      check_fail(__FILE__, __LINE__, "%s %s[%d]: got %lld, want %lld", tname, what, \
                 i_ * (stride), g_, w_); \
      break; \
    } \
  }

#define TEST_TYPE(T, NAME) \
  static T g_##NAME[N]; \
  static void test_##NAME(int me, int n) { \
    const char *tname = #NAME; \
    int right = (me + 1) % n, left = (me + n - 1) % n; \
    T *h = shmem_malloc(N * sizeof(T)); \
    T src[N], got[N]; \
    for (int i = 0; i < N; ++i) src[i] = (T)check_val(me, i, 1); \
    shmem_##NAME##_put(g_##NAME, src, N, right); \
    shmem_##NAME##_put(h, src, N, right); \
    shmem_barrier_all(); \
    CHECK_ARR(g_##NAME, left, N, 1, 1, 0, 1, "put static") \
    CHECK_ARR(h, left, N, 1, 1, 0, 1, "put heap") \
    shmem_##NAME##_get(got, g_##NAME, N, right); \
    CHECK_ARR(got, me, N, 1, 1, 0, 1, "get static") \
    memset(got, 0, sizeof got); \
    shmem_##NAME##_get(got, h, N, right); \
    CHECK_ARR(got, me, N, 1, 1, 0, 1, "get heap") \
    shmem_barrier_all(); \
    /* single elements */ \
    shmem_##NAME##_p(&g_##NAME[N - 1], (T)check_val(me, N - 1, 2), right); \
    shmem_##NAME##_p(&h[0], (T)check_val(me, 0, 2), right); \
    shmem_barrier_all(); \
    CHECK_ARR(g_##NAME + N - 1, left, 1, 1, 2, N - 1, 0, "p static"); \
    CHECK_ARR(h, left, 1, 1, 2, 0, 0, "p heap"); \
    got[0] = shmem_##NAME##_g(&h[0], right); \
    got[1] = shmem_##NAME##_g(&g_##NAME[3], right); \
    CHECK_ARR(got, me, 1, 1, 2, 0, 0, "g heap"); \
    CHECK_ARR(got + 1, me, 1, 1, 1, 3, 0, "g static"); \
    shmem_barrier_all(); \
    /* strided: target stride 2, source stride 3, 5 elements */ \
    for (int i = 0; i < N; ++i) src[i] = (T)check_val(me, i, 3); \
    shmem_##NAME##_iput(h, src, 2, 3, 5, right); \
    shmem_barrier_all(); \
    CHECK_ARR(h, left, 5, 2, 3, 0, 3, "iput heap (even slots)"); \
    CHECK_ARR(h + 1, left, 1, 1, 1, 1, 0, "iput left odd slot 1 alone"); \
    memset(got, 0, sizeof got); \
    shmem_##NAME##_iget(got, h, 3, 2, 5, right); /* got[3k] = right's h[2k] */ \
    CHECK_ARR(got, me, 5, 3, 3, 0, 3, "iget heap"); \
    shmem_barrier_all(); \
    /* nbi, completed by quiet before the barrier */ \
    for (int i = 0; i < N; ++i) src[i] = (T)check_val(me, i, 4); \
    shmem_##NAME##_put_nbi(g_##NAME, src, N, right); \
    shmem_##NAME##_put_nbi(h, src, N, right); \
    shmem_quiet(); \
    shmem_barrier_all(); \
    CHECK_ARR(g_##NAME, left, N, 1, 4, 0, 1, "put_nbi static") \
    CHECK_ARR(h, left, N, 1, 4, 0, 1, "put_nbi heap") \
    T got2[N]; \
    shmem_##NAME##_get_nbi(got, g_##NAME, N, right); \
    shmem_##NAME##_get_nbi(got2, h, N, right); \
    shmem_quiet(); \
    CHECK_ARR(got, me, N, 1, 4, 0, 1, "get_nbi static") \
    CHECK_ARR(got2, me, N, 1, 4, 0, 1, "get_nbi heap") \
    shmem_barrier_all(); \
    shmem_free(h); \
  }
SHMEM_TEST_RMA_TYPES(TEST_TYPE)

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
#define RUN(T, NAME) test_##NAME(me, n);
  SHMEM_TEST_RMA_TYPES(RUN)
  return check_finish("rma_typed");
}
