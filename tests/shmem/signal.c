/* pes: 1 2 3 4 8 */
/* Signals (OpenSHMEM 1.5): put_signal and put_signal_nbi with SHMEM_SIGNAL_SET and
 * SHMEM_SIGNAL_ADD, signal_fetch, signal_wait_until. The data of a put_signal is
 * visible once the signal is. OSHMEM (1.4) has none: there it only prints OK. */
#include "check.h"

#define N 1000
#define ROUNDS 20

int main(void) {
  check_begin();
  shmem_init();
#if SHMEM_TEST_15
  int me = shmem_my_pe(), n = shmem_n_pes();
  int right = (me + 1) % n, left = (me + n - 1) % n;
  long *data = shmem_calloc(N, sizeof(long));
  uint64_t *sig = shmem_calloc(2, sizeof(uint64_t));
  long src[N];
  CHECK_EQ(SHMEM_SIGNAL_SET != SHMEM_SIGNAL_ADD, 1, "SET and ADD differ");

  /* a pipeline of rounds to the right neighbour: SET carries the round number */
  for (int r = 1; r <= ROUNDS; ++r) {
    for (int i = 0; i < N; ++i) src[i] = me * 100000L + r * 1000L + i;
    if (r % 2) shmem_long_put_signal(data, src, N, &sig[0], (uint64_t)r, SHMEM_SIGNAL_SET, right);
    else shmem_long_put_signal_nbi(data, src, N, &sig[0], (uint64_t)r, SHMEM_SIGNAL_SET, right);
    uint64_t got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_GE, (uint64_t)r);
    CHECK(got >= (uint64_t)r, "round %d: signal_wait_until returned %llu", r,
          (unsigned long long)got);
    for (int i = 0; i < N; ++i)
      if (data[i] != left * 100000L + r * 1000L + i) {
        CHECK_EQ(data[i], left * 100000L + r * 1000L + i, "data seen with the signal");
        break;
      }
    CHECK_EQ(shmem_signal_fetch(&sig[0]), r, "signal_fetch");
    /* the left neighbour may overwrite data only after I read it */
    shmem_barrier_all();
  }
  shmem_quiet();

  /* ADD: every PE adds its number + 1 to PE 0's signal with a putmem_signal */
  sig[1] = 0;
  shmem_barrier_all();
  long one = me;
  if (me % 2) shmem_putmem_signal(&data[me], &one, sizeof one, &sig[1], (uint64_t)me + 1,
                                  SHMEM_SIGNAL_ADD, 0);
  else shmem_putmem_signal_nbi(&data[me], &one, sizeof one, &sig[1], (uint64_t)me + 1,
                               SHMEM_SIGNAL_ADD, 0);
  shmem_quiet();
  if (me == 0) {
    uint64_t want = (uint64_t)n * (n + 1) / 2;
    uint64_t got = shmem_signal_wait_until(&sig[1], SHMEM_CMP_EQ, want);
    CHECK_EQ(got, want, "signal_wait_until(EQ sum)");
    for (int p = 0; p < n; ++p) CHECK_EQ(data[p], p, "word put with an ADD signal");
  }
  shmem_barrier_all();
  shmem_free(data);
  shmem_free(sig);
#endif
  return check_finish("signal");
}
