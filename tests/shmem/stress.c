/* pes: 1 2 3 4 8 */
/* Randomized stress (seeded per PE): puts, nbi puts, gets and atomics from every PE
 * to every PE, checked against a sequential model. Each PE owns disjoint byte slots
 * and atomic words on every PE, so its own model predicts every value it reads back;
 * at the end, after a barrier, every owner reads all its slots back. N PEs x M
 * fetch_adds on one counter of PE 0 give exactly N*M, and the fetched values are a
 * permutation of 0..N*M-1. */
#include "check.h"

#define OPS 1000
#define M 300
#define SLOT 256
#define WORDS 8

static uint64_t rng;
static uint64_t next(void) { /* xorshift64 */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static long counter;

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)(me + 1) * 7919;
  unsigned char *bytes = shmem_calloc((size_t)n * SLOT, 1); /* [owner][SLOT] */
  long *words = shmem_calloc((size_t)n * WORDS, sizeof(long)); /* [owner][WORDS] */
  long *olds = shmem_calloc((size_t)n * M, sizeof(long));
  unsigned char *mb = calloc((size_t)n * SLOT, 1); /* model: my slot on PE q */
  long *mw = calloc((size_t)n * WORDS, sizeof(long));
  /* shmem_calloc ends with a barrier after zeroing; OSHMEM 4.1.4 seems to zero after its
   * barrier (an early atomic_inc into olds was lost at 8 PEs), so it gets another. */
  if (SHMEM_TEST_OSHMEM) shmem_barrier_all();
  unsigned char buf[SLOT];

  for (int op = 0; op < OPS; ++op) {
    int q = (int)(next() % (uint64_t)n);
    unsigned char *mine = bytes + (size_t)me * SLOT, *model = mb + (size_t)q * SLOT;
    long *w = words + (size_t)me * WORDS, *mwq = mw + (size_t)q * WORDS;
    int k = (int)(next() % WORDS), off = (int)(next() % SLOT);
    int len = 1 + (int)(next() % (uint64_t)(SLOT - off));
    long v = (long)(next() % 100000) - 50000;
    switch (next() % 8) {
      case 0: /* blocking put of a random range */
      case 1:
        for (int i = 0; i < len; ++i) buf[i] = (unsigned char)next();
        shmem_fence(); /* overlapping puts to one PE land in program order */
        if (op % 2) shmem_putmem_nbi(mine + off, buf, (size_t)len, q);
        else shmem_putmem(mine + off, buf, (size_t)len, q);
        memcpy(model + off, buf, (size_t)len);
        break;
      case 2: /* get a range back: must match the model once puts are complete */
        shmem_quiet();
        shmem_getmem(buf, mine + off, (size_t)len, q);
        if (memcmp(buf, model + off, (size_t)len) != 0)
          CHECK(0, "op %d: getmem of %d bytes at %d from PE %d differs from the model", op, len,
                off, q);
        break;
      case 3:
        shmem_fence(); /* orders earlier non-fetching atomics before this fetching one */
        CHECK_EQ(shmem_long_atomic_fetch_add(&w[k], v, q), mwq[k], "fetch_add old value");
        mwq[k] += v;
        break;
      case 4:
        shmem_long_atomic_add(&w[k], v, q);
        mwq[k] += v;
        break;
      case 5:
        shmem_fence();
        CHECK_EQ(shmem_long_atomic_swap(&w[k], v, q), mwq[k], "swap old value");
        mwq[k] = v;
        break;
      case 6: {
        shmem_fence();
        long cond = (next() % 2) ? mwq[k] : mwq[k] + 1; /* succeeds or fails on purpose */
        CHECK_EQ(shmem_long_atomic_compare_swap(&w[k], cond, v, q), mwq[k], "cswap old value");
        if (cond == mwq[k]) mwq[k] = v;
        break;
      }
      default:
        shmem_fence();
        CHECK_EQ(shmem_long_atomic_fetch(&w[k], q), mwq[k], "atomic fetch");
        shmem_long_atomic_inc(&w[k], q);
        mwq[k] += 1;
        break;
    }
  }

  /* the shared counter: exactly N*M, and every old value once */
  for (int i = 0; i < M; ++i) {
    long old = shmem_long_atomic_fetch_add(&counter, 1, 0);
    if (old >= 0 && old < (long)n * M) shmem_long_atomic_inc(&olds[old], 0);
    else CHECK(0, "fetch_add on the counter returned %ld", old);
  }
  shmem_barrier_all();
  if (me == 0) {
    CHECK_EQ(counter, (long)n * M, "counter after N x M fetch_adds");
    for (long i = 0; i < (long)n * M; ++i)
      if (olds[i] != 1) { CHECK(0, "old value %ld fetched %ld times", i, olds[i]); break; }
  }
  /* every owner reads all its slots back after the barrier */
  for (int q = 0; q < n; ++q) {
    shmem_getmem(buf, bytes + (size_t)me * SLOT, SLOT, q);
    CHECK(memcmp(buf, mb + (size_t)q * SLOT, SLOT) == 0, "final bytes of my slot on PE %d", q);
    long wv[WORDS];
    shmem_long_get(wv, words + (size_t)me * WORDS, WORDS, q);
    for (int k = 0; k < WORDS; ++k) CHECK_EQ(wv[k], mw[(size_t)q * WORDS + k], "final word");
  }
  shmem_barrier_all();
  free(mb);
  free(mw);
  shmem_free(bytes);
  shmem_free(words);
  shmem_free(olds);
  return check_finish("stress");
}
