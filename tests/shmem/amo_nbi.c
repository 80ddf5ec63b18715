/* pes: 1 2 3 4 8 */
/* The non-blocking fetching atomics of OpenSHMEM 1.5 (fetch_nbi, compare_swap_nbi,
 * swap_nbi, fetch_inc_nbi, fetch_add_nbi, fetch_and/or/xor_nbi): the fetched value
 * is there after shmem_quiet. OSHMEM (1.4) has none of them: there the program only
 * prints OK. */
#include "check.h"
#include "amo_types.h"

#if SHMEM_TEST_15
#define V(pe, k) (2000 + (pe) * 10 + (k))

#define TEST_NBI(T, NAME) \
  static T n_##NAME; \
  static void nbi_##NAME(int me, int n) { \
    int right = (me + 1) % n, left = (me + n - 1) % n; \
    T f[4]; \
    shmem_##NAME##_atomic_set(&n_##NAME, (T)V(me, 1), right); \
    shmem_barrier_all(); \
    shmem_##NAME##_atomic_fetch_nbi(&f[0], &n_##NAME, right); \
    shmem_quiet(); \
    CHECK(f[0] == (T)V(me, 1), #NAME " fetch_nbi gave %lld", (long long)f[0]); \
    shmem_##NAME##_atomic_swap_nbi(&f[1], &n_##NAME, (T)V(me, 2), right); \
    shmem_quiet(); \
    CHECK(f[1] == (T)V(me, 1), #NAME " swap_nbi gave %lld", (long long)f[1]); \
    shmem_##NAME##_atomic_compare_swap_nbi(&f[2], &n_##NAME, (T)V(me, 2), (T)V(me, 3), right); \
    shmem_quiet(); \
    CHECK(f[2] == (T)V(me, 2), #NAME " compare_swap_nbi gave %lld", (long long)f[2]); \
    shmem_##NAME##_atomic_fetch_inc_nbi(&f[0], &n_##NAME, right); \
    shmem_quiet(); \
    shmem_##NAME##_atomic_fetch_add_nbi(&f[1], &n_##NAME, (T)5, right); \
    shmem_quiet(); \
    CHECK(f[0] == (T)V(me, 3), #NAME " fetch_inc_nbi gave %lld", (long long)f[0]); \
    CHECK(f[1] == (T)(V(me, 3) + 1), #NAME " fetch_add_nbi gave %lld", (long long)f[1]); \
    shmem_barrier_all(); \
    CHECK(n_##NAME == (T)(V(left, 3) + 6), #NAME " after the nbi ops: %lld", \
          (long long)n_##NAME); \
    shmem_barrier_all(); \
    /* many outstanding fetch_add_nbi onto PE 0, all completed by one quiet */ \
    n_##NAME = 0; \
    shmem_barrier_all(); \
    T olds[16]; \
    for (int i = 0; i < 16; ++i) shmem_##NAME##_atomic_fetch_add_nbi(&olds[i], &n_##NAME, (T)1, 0); \
    shmem_quiet(); \
    /* nbi atomics may apply in any order, but each old value is distinct */ \
    for (int i = 0; i < 16; ++i) \
      for (int j = 0; j < i; ++j) \
        CHECK(olds[i] != olds[j] && olds[i] < (T)(16 * n), \
              #NAME " fetch_add_nbi olds[%d] %lld, olds[%d] %lld", i, (long long)olds[i], j, \
              (long long)olds[j]); \
    shmem_barrier_all(); \
    if (me == 0) CHECK(n_##NAME == (T)(16 * n), #NAME " nbi total %lld", (long long)n_##NAME); \
    shmem_barrier_all(); \
  }
SHMEM_TEST_AMO_STD(TEST_NBI)

#define TEST_NBI_BIT(T, NAME) \
  static T nb_##NAME; \
  static void nbibit_##NAME(int me, int n) { \
    int right = (me + 1) % n; \
    T f[3]; \
    shmem_##NAME##_atomic_set(&nb_##NAME, (T)0xF0F0u, right); \
    shmem_barrier_all(); \
    shmem_##NAME##_atomic_fetch_and_nbi(&f[0], &nb_##NAME, (T)0x0FF0u, right); \
    shmem_quiet(); \
    shmem_##NAME##_atomic_fetch_or_nbi(&f[1], &nb_##NAME, (T)0x000Fu, right); \
    shmem_quiet(); \
    shmem_##NAME##_atomic_fetch_xor_nbi(&f[2], &nb_##NAME, (T)0x00FFu, right); \
    shmem_quiet(); \
    CHECK(f[0] == (T)0xF0F0u, #NAME " fetch_and_nbi gave %llx", (unsigned long long)f[0]); \
    CHECK(f[1] == (T)0x00F0u, #NAME " fetch_or_nbi gave %llx", (unsigned long long)f[1]); \
    CHECK(f[2] == (T)0x00FFu, #NAME " fetch_xor_nbi gave %llx", (unsigned long long)f[2]); \
    shmem_barrier_all(); \
    CHECK(nb_##NAME == 0, #NAME " after the bitwise nbi ops: %llx", (unsigned long long)nb_##NAME); \
    shmem_barrier_all(); \
  }
SHMEM_TEST_AMO_BIT(TEST_NBI_BIT)

#define TEST_NBI_EXT(T, NAME) \
  static T ne_##NAME; \
  static void nbiext_##NAME(int me, int n) { \
    int right = (me + 1) % n; \
    T f[2]; \
    shmem_##NAME##_atomic_set(&ne_##NAME, (T)1.25, right); \
    shmem_barrier_all(); \
    shmem_##NAME##_atomic_fetch_nbi(&f[0], &ne_##NAME, right); \
    shmem_quiet(); \
    shmem_##NAME##_atomic_swap_nbi(&f[1], &ne_##NAME, (T)(me + 0.5), right); \
    shmem_quiet(); \
    CHECK(f[0] == (T)1.25 && f[1] == (T)1.25, #NAME " fetch_nbi/swap_nbi gave %g %g", \
          (double)f[0], (double)f[1]); \
    shmem_barrier_all(); \
    CHECK(ne_##NAME == (T)((me + n - 1) % n + 0.5), #NAME " after swap_nbi: %g", \
          (double)ne_##NAME); \
    shmem_barrier_all(); \
  }
SHMEM_TEST_AMO_EXT(TEST_NBI_EXT)
#endif

int main(void) {
  check_begin();
  shmem_init();
#if SHMEM_TEST_15
  int me = shmem_my_pe(), n = shmem_n_pes();
#define RUN_NBI(T, NAME) nbi_##NAME(me, n);
#define RUN_NBI_BIT(T, NAME) nbibit_##NAME(me, n);
#define RUN_NBI_EXT(T, NAME) nbiext_##NAME(me, n);
  SHMEM_TEST_AMO_STD(RUN_NBI)
  SHMEM_TEST_AMO_BIT(RUN_NBI_BIT)
  SHMEM_TEST_AMO_EXT(RUN_NBI_EXT)
#endif
  return check_finish("amo_nbi");
}
