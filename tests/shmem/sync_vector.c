/* pes: 1 2 3 4 8 */
/* The OpenSHMEM 1.5 multi-variable waits and tests: wait_until_all/any/some, their
 * _vector forms, test_all/any/some(+_vector), with and without a status mask.
 * ivars[p] on every PE is written only by PE p. OSHMEM (1.4) has none: OK there. */
#include "check.h"

#if SHMEM_TEST_15
static void reset(long *iv, int n, long v) {
  for (int i = 0; i < n; ++i) iv[i] = v;
  shmem_barrier_all(); /* nobody writes before every PE has reset */
}

static void run(int me, int n) {
  int left = (me + n - 1) % n;
  long *iv = shmem_malloc((size_t)n * sizeof(long));
  int *status = calloc((size_t)n, sizeof(int));
  size_t *idx = calloc((size_t)n, sizeof(size_t));
  long *want = calloc((size_t)n, sizeof(long));

  /* all: every PE sets its slot on every PE */
  reset(iv, n, 0);
  CHECK_EQ(shmem_long_test_all(iv, n, NULL, SHMEM_CMP_EQ, 1), 0, "test_all before writes");
  for (int p = 0; p < n; ++p) shmem_long_atomic_set(&iv[me], 1, p);
  shmem_long_wait_until_all(iv, n, NULL, SHMEM_CMP_EQ, 1);
  for (int p = 0; p < n; ++p) CHECK_EQ(iv[p], 1, "slot after wait_until_all");
  CHECK_EQ(shmem_long_test_all(iv, n, NULL, SHMEM_CMP_EQ, 1), 1, "test_all after writes");
  shmem_barrier_all();

  /* any: only the left neighbour writes */
  for (int i = 0; i < n; ++i) iv[i] = 0;
  CHECK_EQ(shmem_long_test_any(iv, n, NULL, SHMEM_CMP_NE, 0), SIZE_MAX, "test_any, none set");
  shmem_barrier_all();
  shmem_long_atomic_set(&iv[me], 2, (me + 1) % n);
  size_t a = shmem_long_wait_until_any(iv, n, NULL, SHMEM_CMP_EQ, 2);
  CHECK_EQ(a, left, "wait_until_any index");
  CHECK_EQ(shmem_long_test_any(iv, n, NULL, SHMEM_CMP_EQ, 2), left, "test_any index");
  status[left] = 1; /* masked out: nothing else satisfies the condition */
  CHECK_EQ(shmem_long_test_any(iv, n, status, SHMEM_CMP_EQ, 2), SIZE_MAX, "test_any masked");
  status[left] = 0;
  shmem_barrier_all();

  /* some: the two left neighbours write; collect indices until both are seen */
  reset(iv, n, 0);
  int l2 = (me + n - 2) % n, expect_count = (l2 == left) ? 1 : 2;
  shmem_long_atomic_set(&iv[me], 3, (me + 1) % n);
  shmem_long_atomic_set(&iv[me], 3, (me + 2) % n);
  int seen = 0;
  while (seen < expect_count) {
    size_t k = shmem_long_wait_until_some(iv, n, idx, status, SHMEM_CMP_EQ, 3);
    CHECK(k >= 1 && k <= (size_t)expect_count, "wait_until_some returned %zu", k);
    if (k < 1 || k > (size_t)expect_count) break;
    for (size_t j = 0; j < k; ++j) {
      CHECK(idx[j] == (size_t)left || idx[j] == (size_t)l2, "wait_until_some index %zu", idx[j]);
      status[idx[j]] = 1; /* do not report it again */
      ++seen;
    }
  }
  CHECK_EQ(shmem_long_test_some(iv, n, idx, status, SHMEM_CMP_EQ, 3), 0,
           "test_some with the found ones masked");
  for (int i = 0; i < n; ++i) status[i] = 0;
  CHECK_EQ(shmem_long_test_some(iv, n, idx, NULL, SHMEM_CMP_EQ, 3), expect_count, "test_some");
  shmem_barrier_all();

  /* vector forms: slot p must reach 10 + p */
  reset(iv, n, 0);
  for (int i = 0; i < n; ++i) want[i] = 10 + i;
  CHECK_EQ(shmem_long_test_all_vector(iv, n, NULL, SHMEM_CMP_EQ, want), 0, "test_all_vector");
  for (int p = 0; p < n; ++p) shmem_long_atomic_set(&iv[me], 10 + me, p);
  shmem_long_wait_until_all_vector(iv, n, NULL, SHMEM_CMP_EQ, want);
  for (int p = 0; p < n; ++p) CHECK_EQ(iv[p], 10 + p, "slot after wait_until_all_vector");
  CHECK_EQ(shmem_long_test_all_vector(iv, n, NULL, SHMEM_CMP_GE, want), 1, "test_all_vector");
  size_t v = shmem_long_wait_until_any_vector(iv, n, NULL, SHMEM_CMP_EQ, want);
  CHECK(v < (size_t)n, "wait_until_any_vector returned %zu", v);
  v = shmem_long_test_any_vector(iv, n, NULL, SHMEM_CMP_NE, want);
  CHECK_EQ(v, SIZE_MAX, "test_any_vector NE: none differs");
  size_t k = shmem_long_wait_until_some_vector(iv, n, idx, NULL, SHMEM_CMP_LE, want);
  CHECK_EQ(k, n, "wait_until_some_vector LE count");
  k = shmem_long_test_some_vector(iv, n, idx, NULL, SHMEM_CMP_LT, want);
  CHECK_EQ(k, 0, "test_some_vector LT count");

  /* everything masked: nothing to wait for */
  for (int i = 0; i < n; ++i) status[i] = 1;
  shmem_long_wait_until_all(iv, n, status, SHMEM_CMP_EQ, -5);
  CHECK_EQ(shmem_long_wait_until_any(iv, n, status, SHMEM_CMP_EQ, -5), SIZE_MAX,
           "wait_until_any, all masked");
  CHECK_EQ(shmem_long_wait_until_some(iv, n, idx, status, SHMEM_CMP_EQ, -5), 0,
           "wait_until_some, all masked");
  shmem_barrier_all();

  /* another type, to see the family is per type: uint64 any */
  uint64_t *u = shmem_calloc(1, sizeof(uint64_t));
  shmem_uint64_atomic_set(u, 9, (me + 1) % n);
  CHECK_EQ(shmem_uint64_wait_until_any(u, 1, NULL, SHMEM_CMP_EQ, 9), 0, "uint64 wait_until_any");
  shmem_barrier_all();
  shmem_free(u);
  shmem_free(iv);
  free(status);
  free(idx);
  free(want);
}
#endif

int main(void) {
  check_begin();
  shmem_init();
#if SHMEM_TEST_15
  run(shmem_my_pe(), shmem_n_pes());
#endif
  return check_finish("sync_vector");
}
