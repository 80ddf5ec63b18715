/* pes: 1 2 3 4 8 */
/* Atomics for every standard AMO type (set, fetch, swap, compare_swap, fetch_add,
 * add, fetch_inc, inc) on the ring neighbour, static global and heap, and
 * concurrent adds/incs from every PE onto PE 0 with exact totals; fetch/set/swap
 * for the extended types float and double. */
#include "check.h"
#include "amo_types.h"

#define V(pe, k) (1000 + (pe) * 10 + (k)) /* fits every AMO type */
#define INCS 50

#define TEST_STD(T, NAME) \
  static T g_##NAME; \
  static void std_##NAME(int me, int n) { \
    int right = (me + 1) % n, left = (me + n - 1) % n; \
    T *h = shmem_malloc(2 * sizeof(T)); \
    T *targets[2] = {&g_##NAME, h}; \
    for (int t = 0; t < 2; ++t) { \
      T *x = targets[t]; \
      const char *what = t ? #NAME " heap" : #NAME " static"; \
      shmem_##NAME##_atomic_set(x, (T)V(me, 1), right); \
      shmem_barrier_all(); \
      CHECK(*x == (T)V(left, 1), "%s set: %lld", what, (long long)*x); \
      shmem_barrier_all(); /* read before the left neighbour goes on changing it */ \
      CHECK(shmem_##NAME##_atomic_fetch(x, right) == (T)V(me, 1), "%s fetch", what); \
      T old = shmem_##NAME##_atomic_swap(x, (T)V(me, 2), right); \
      CHECK(old == (T)V(me, 1), "%s swap returned %lld", what, (long long)old); \
      if (SHMEM_TEST_CSWAP_OK(T)) { \
        old = shmem_##NAME##_atomic_compare_swap(x, (T)V(me, 9), (T)V(me, 3), right); \
        CHECK(old == (T)V(me, 2), "%s failing cswap returned %lld", what, (long long)old); \
        old = shmem_##NAME##_atomic_compare_swap(x, (T)V(me, 2), (T)V(me, 3), right); \
        CHECK(old == (T)V(me, 2), "%s cswap returned %lld", what, (long long)old); \
      } else { \
        shmem_##NAME##_atomic_set(x, (T)V(me, 3), right); \
      } \
      old = shmem_##NAME##_atomic_fetch_add(x, (T)5, right); \
      CHECK(old == (T)V(me, 3), "%s fetch_add returned %lld", what, (long long)old); \
      shmem_##NAME##_atomic_add(x, (T)2, right); \
      shmem_##NAME##_atomic_inc(x, right); \
      old = shmem_##NAME##_atomic_fetch_inc(x, right); \
      CHECK(old == (T)(V(me, 3) + 8), "%s fetch_inc returned %lld", what, (long long)old); \
      shmem_barrier_all(); \
      CHECK(*x == (T)(V(left, 3) + 9), "%s after the ops: %lld, want %lld", what, \
            (long long)*x, (long long)(V(left, 3) + 9)); \
      /* every PE adds and increments PE 0's word concurrently */ \
      *x = 0; \
      shmem_barrier_all(); \
      T prev = shmem_##NAME##_atomic_fetch_add(x, (T)(me + 1), 0); \
      CHECK(prev <= (T)(n * (n + 1) / 2 + n * INCS - (me + 1)), "%s fetch_add old %lld", what, \
            (long long)prev); \
      for (int i = 0; i < INCS; ++i) { \
        if (i % 2) shmem_##NAME##_atomic_inc(x, 0); \
        else (void)shmem_##NAME##_atomic_fetch_inc(x, 0); \
      } \
      shmem_barrier_all(); \
      if (me == 0) \
        CHECK(*x == (T)(n * (n + 1) / 2 + n * INCS), "%s total %lld, want %lld", what, \
              (long long)*x, (long long)(n * (n + 1) / 2 + n * INCS)); \
      shmem_barrier_all(); \
    } \
    shmem_free(h); \
  }
SHMEM_TEST_AMO_STD(TEST_STD)

#define TEST_EXT(T, NAME) \
  static T e_##NAME; \
  static void ext_##NAME(int me, int n) { \
    int right = (me + 1) % n, left = (me + n - 1) % n; \
    shmem_##NAME##_atomic_set(&e_##NAME, (T)V(me, 0) + (T)0.5, right); \
    shmem_barrier_all(); \
    CHECK(e_##NAME == (T)V(left, 0) + (T)0.5, #NAME " set: %g", (double)e_##NAME); \
    shmem_barrier_all(); \
    T f = shmem_##NAME##_atomic_fetch(&e_##NAME, right); \
    CHECK(f == (T)V(me, 0) + (T)0.5, #NAME " fetch: %g", (double)f); \
    f = shmem_##NAME##_atomic_swap(&e_##NAME, (T)-2.25, right); \
    CHECK(f == (T)V(me, 0) + (T)0.5, #NAME " swap returned %g", (double)f); \
    shmem_barrier_all(); \
    CHECK(e_##NAME == (T)-2.25, #NAME " after swap: %g", (double)e_##NAME); \
  }
SHMEM_TEST_AMO_EXT(TEST_EXT)

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
#define RUN_STD(T, NAME) std_##NAME(me, n);
#define RUN_EXT(T, NAME) ext_##NAME(me, n);
  SHMEM_TEST_AMO_STD(RUN_STD)
  SHMEM_TEST_AMO_EXT(RUN_EXT)
  return check_finish("amo");
}
