/* A distributed histogram in plain OpenSHMEM: every PE draws the same pseudo-random
 * stream in its own slice and adds each sample to the bin on the PE that owns it
 * with a remote atomic (the owner takes no part), then a sum reduction over the
 * world team gives the total per PE. Builds unchanged with any OpenSHMEM compiler
 * wrapper (interlace-oshcc, oshcc).
 *   usage: histogram SAMPLES BINS_PER_PE */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long total; /* a global: symmetric too */

int main(int argc, char** argv) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const long samples = argc > 1 ? atol(argv[1]) : 100000;
  const int per_pe = argc > 2 ? atoi(argv[2]) : 16;
  const long bins = (long)per_pe * npes;
  long* hist = shmem_calloc((size_t)per_pe, sizeof(long));
  /* The sample stream is the same whatever the PE count: PE p draws [lo, hi). */
  const long lo = samples * me / npes, hi = samples * (me + 1) / npes;
  for (long i = lo; i < hi; i++) {
    unsigned long x = (unsigned long)i * 6364136223846793005UL + 1442695040888963407UL;
    x ^= x >> 29;
    const long bin = (long)((x >> 11) % (unsigned long)bins);
    shmem_long_atomic_add(&hist[bin % per_pe], 1, (int)(bin / per_pe));
  }
  shmem_barrier_all();
  long mine = 0, weighted = 0;
  for (int b = 0; b < per_pe; b++) {
    mine += hist[b];
    weighted += hist[b] * (long)(me * per_pe + b);
  }
  static long sums[2], result[2];
  sums[0] = mine;
  sums[1] = weighted;
  shmem_long_sum_reduce(SHMEM_TEAM_WORLD, result, sums, 2);
  shmem_long_atomic_add(&total, mine, 0);
  shmem_barrier_all();
  if (me == 0)
    printf("histogram of %ld samples in %ld bins: count %ld, checksum %ld, total by atomics %ld\n",
           samples, bins / npes * npes, result[0], result[1], total);
  const int ok = result[0] == samples && (me != 0 || total == samples);
  shmem_free(hist);
  shmem_finalize();
  return ok ? 0 : 1; /* every PE has the reduction; only PE 0 the atomics' total */
}
