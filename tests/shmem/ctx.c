/* pes: 1 2 3 4 8 */
/* Communication contexts: ctx_create (with options)/destroy, RMA and atomics on a
 * context and on SHMEM_CTX_DEFAULT, ctx_quiet completing the context's own nbi puts
 * (the target sees the data once it sees a flag sent after the quiet), ctx_fence. */
#include "check.h"

#define N 4096

static long data[N];
static long flag;
static long counter;
static int word;

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  int right = (me + 1) % n, left = (me + n - 1) % n;
  shmem_ctx_t a, b, s;
  CHECK_EQ(shmem_ctx_create(0, &a), 0, "ctx_create(0)");
  CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &b), 0, "ctx_create(PRIVATE)");
  CHECK_EQ(shmem_ctx_create(SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE, &s), 0,
           "ctx_create(SERIALIZED|NOSTORE)");
  long *src = malloc(N * sizeof(long));

  /* nbi puts on a, completed by ctx_quiet(a); the flag goes on b afterwards */
  for (int r = 1; r <= 30; ++r) {
    for (int i = 0; i < N; ++i) src[i] = r * 10000L + me * 100L + i % 100;
    shmem_ctx_long_put_nbi(a, data, src, N, right);
    shmem_ctx_quiet(a);
    shmem_ctx_long_atomic_set(b, &flag, r, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, r);
    for (int i = 0; i < N; i += 511)
      CHECK_EQ(data[i], r * 10000L + left * 100L + i % 100, "data seen after a's quiet");
    shmem_barrier_all(); /* the left neighbour overwrites data next round */
  }

  /* blocking RMA on contexts and on the default context */
  shmem_ctx_int_p(a, &word, 7 + me, right);
  shmem_ctx_quiet(a);
  shmem_barrier_all();
  CHECK_EQ(word, 7 + left, "ctx_int_p");
  CHECK_EQ(shmem_ctx_int_g(b, &word, right), 7 + me, "ctx_int_g");
  CHECK_EQ(shmem_ctx_int_g(SHMEM_CTX_DEFAULT, &word, right), 7 + me, "ctx_int_g(DEFAULT)");
  long got[8];
  shmem_ctx_long_get(s, got, data, 8, right);
  for (int i = 0; i < 8; ++i) CHECK_EQ(got[i], 30 * 10000L + me * 100L + i, "ctx_long_get");
  shmem_ctx_getmem(SHMEM_CTX_DEFAULT, got, data + 8, 8 * sizeof(long), right);
  CHECK_EQ(got[7], 30 * 10000L + me * 100L + 15, "ctx_getmem(DEFAULT)");
  shmem_barrier_all();

  /* fence on a context orders its puts to one PE */
  for (int r = 1; r <= 30; ++r) {
    shmem_ctx_long_p(a, &data[0], -r, right);
    shmem_ctx_fence(a);
    shmem_ctx_long_p(a, &flag, 100 + r, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 100 + r);
    CHECK_EQ(data[0], -r, "data before the flag after ctx_fence");
    shmem_barrier_all();
  }

  /* atomics on several contexts hit the same counter: exact total on PE 0 */
  shmem_ctx_t ctxs[4] = {a, b, s, SHMEM_CTX_DEFAULT};
  for (int i = 0; i < 40; ++i) {
    shmem_ctx_t c = ctxs[i % 4];
    if (i % 2) shmem_ctx_long_atomic_add(c, &counter, 2, 0);
    else (void)shmem_ctx_long_atomic_fetch_inc(c, &counter, 0);
  }
  for (int k = 0; k < 4; ++k) shmem_ctx_quiet(ctxs[k]);
  shmem_barrier_all();
  if (me == 0) CHECK_EQ(counter, (long)n * (20 * 2 + 20), "counter after ctx atomics");
  shmem_barrier_all();
  long old = shmem_ctx_long_atomic_swap(b, &counter, me, right);
  CHECK(old >= 0, "ctx swap returned %ld", old);
  shmem_barrier_all();
  CHECK_EQ(counter, left, "counter after ctx_long_atomic_swap");
  shmem_barrier_all();
  CHECK_EQ(shmem_ctx_long_atomic_compare_swap(a, &counter, me, 50 + me, right), me,
           "ctx_long_atomic_compare_swap");
  CHECK_EQ(shmem_ctx_long_atomic_fetch(s, &counter, right), 50 + me, "ctx_long_atomic_fetch");
#if !SHMEM_TEST_OSHMEM /* OSHMEM's 32-bit compare-swap is broken */
  shmem_barrier_all();
  word = 3;
  shmem_barrier_all();
  CHECK_EQ(shmem_ctx_int_atomic_compare_swap(a, &word, 3, 4 + me, right), 3,
           "ctx_int_atomic_compare_swap");
  shmem_barrier_all();
  CHECK_EQ(word, 4 + left, "word after ctx_int_atomic_compare_swap");
#endif
#if SHMEM_TEST_15
  shmem_team_t t = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_ctx_get_team(a, &t), 0, "ctx_get_team");
  CHECK(t == SHMEM_TEAM_WORLD, "a context from ctx_create belongs to SHMEM_TEAM_WORLD");
  CHECK_EQ(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t), 0, "ctx_get_team(DEFAULT)");
  CHECK(t == SHMEM_TEAM_WORLD, "SHMEM_CTX_DEFAULT belongs to SHMEM_TEAM_WORLD");
#endif
  shmem_barrier_all();
  shmem_ctx_destroy(a);
  shmem_ctx_destroy(b);
  shmem_ctx_destroy(s);
  free(src);
  return check_finish("ctx");
}
