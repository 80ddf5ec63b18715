/* FSHMEM's communication figures (section IV, Table III and Fig. 5) over shmem.h between
 * PE 0 (initiator) and PE 1, in virtual time on the sim fabric's fshmem preset.
 *   --mode latency    PUT: from the command at PE 0 until the word has landed at PE 1
 *                     (FSHMEM times a PUT until its header reaches the remote FPGA;
 *                     one time base, so one-way); GET: one blocking get (until the
 *                     reply is back). "short" is FSHMEM's short message (no payload, GASNet
 *                     AM short: arguments only): shmem_long_atomic_set/_fetch, whose
 *                     value rides in the AM's arguments; "long" a 4-byte payload with
 *                     shmem_putmem/getmem (AM long: payload read from memory).
 *   --mode bandwidth  for transfer sizes 4 B .. --max bytes (x2): a putmem timed
 *                     one-way (command to last word landed at PE 1) or one blocking
 *                     getmem; bandwidth = size / time (MB/s = 1e6 B/s,
 *                     the paper's 3813 MB/s is 95% of 250 MHz x 16 B = 4000 MB/s).
 * One JSON line per figure from PE 0. */
#include <shmem.h>

#include "fid_common.h"

static long word_src, word_dst, flag; /* symmetric statics */

/* One-way: PE 0 stamps the command, PE 1 the moment the word has landed; both clocks
 * are the job's one virtual time base. PE 1 sends its stamps' sum back at the end. */
static double put_oneway(int me, long iters, int use_mem) {
  double sum0 = 0;
  for (long i = 1; i <= iters + 1; ++i) {
    shmem_barrier_all();
    /* PE 0 leaves the barrier up to a one-way latency before PE 1: idle 2 us first, so
     * that PE 1 is already waiting and sees the word the moment it lands. */
    if (me == 0) fid_charge(2e-6);
    const double t = interlace_wtime();
    if (me == 0) {
      if (use_mem) {
        int v = (int)i;
        shmem_putmem(&flag, &v, sizeof v, 1);
      } else {
        shmem_long_atomic_set(&flag, i, 1);
      }
      shmem_quiet();
      if (i > 1) sum0 -= t; /* the first round warms both sides */
    } else {
      if (use_mem) shmem_int_wait_until((int*)&flag, SHMEM_CMP_EQ, (int)i);
      else shmem_long_wait_until(&flag, SHMEM_CMP_EQ, i);
      if (i > 1) sum0 += interlace_wtime();
    }
  }
  static double arrived;
  shmem_barrier_all();
  if (me == 1) shmem_double_p(&arrived, sum0, 0);
  shmem_barrier_all();
  return me == 0 ? (arrived + sum0) / (double)iters : 0;
}

static double get_time(long iters, int use_mem) {
  long v = 0;
  shmem_long_g(&word_src, 1); /* warm */
  const double t0 = interlace_wtime();
  for (long i = 0; i < iters; ++i) {
    if (use_mem) shmem_getmem(&word_dst, &word_src, 4, 1);
    else v += shmem_long_atomic_fetch(&word_src, 1);
  }
  (void)v;
  return (interlace_wtime() - t0) / (double)iters;
}

int main(int argc, char** argv) {
  shmem_init();
  const int me = shmem_my_pe();
  const char* mode = fid_opt_str(argc, argv, "--mode", "latency");
  const long iters = fid_opt_long(argc, argv, "--iters", 100);
  const long max = fid_opt_long(argc, argv, "--max", 2L << 20);
  const long packet = fid_opt_long(argc, argv, "--packet", 0); /* label only: the preset sets it */
  if (shmem_n_pes() != 2 || iters < 1 || max < 4 || max > (1L << 30)) {
    if (me == 0)
      fprintf(stderr, "fshmem_putget: needs 2 PEs, --iters >= 1, --max in 4..2^30 (got %d, %ld, %ld)\n",
              shmem_n_pes(), iters, max);
    shmem_finalize();
    return 2;
  }
  if (strcmp(mode, "latency") == 0) {
    for (int use_mem = 0; use_mem <= 1; ++use_mem) {
      flag = 0;
      shmem_barrier_all();
      const double put = put_oneway(me, iters, use_mem);
      shmem_barrier_all();
      const double get = me == 0 ? get_time(iters, use_mem) : 0;
      shmem_barrier_all();
      if (me == 0)
        FID_PRINT("\"bench\": \"fshmem_latency\", \"kind\": \"%s\", \"packet\": %ld, \"put_us\": %.6f, "
                  "\"get_us\": %.6f",
                  use_mem ? "long" : "short", packet, put * 1e6, get * 1e6);
    }
  } else if (strcmp(mode, "bandwidth") == 0) {
    char* buf = shmem_malloc((size_t)max);
    char* local = malloc((size_t)max);
    if (!buf || !local) {
      fprintf(stderr, "fshmem_putget: cannot allocate %ld bytes\n", max);
      shmem_global_exit(1);
    }
    memset(local, 1, (size_t)max);
    static double arrived;
    for (long n = 4; n <= max; n *= 2) {
      const long reps = n >= (256L << 10) ? 2 : 4;
      /* PUT one-way, as FSHMEM times it: PE 0's command until the last word has landed
       * at PE 1 (puts of one pair land in order), PE 1 idle-waiting already. */
      double sum = 0;
      for (long r = 0; r < reps; ++r) {
        const int marker = (int)(n + r + 1);
        shmem_barrier_all();
        if (me == 0) {
          fid_charge(2e-6);
          memcpy(local + n - 4, &marker, 4);
          sum -= interlace_wtime();
          shmem_putmem(buf, local, (size_t)n, 1);
          shmem_quiet();
        } else {
          shmem_int_wait_until((int*)(buf + n - 4), SHMEM_CMP_EQ, marker);
          sum += interlace_wtime();
        }
      }
      shmem_barrier_all();
      if (me == 1) shmem_double_p(&arrived, sum, 0);
      shmem_barrier_all();
      if (me == 0) {
        const double tp = (arrived + sum) / (double)reps;
        double tg = 0;
        for (long r = 0; r < reps; ++r) {
          fid_charge(2e-6);
          const double t0 = interlace_wtime();
          shmem_getmem(local, buf, (size_t)n, 1);
          tg += interlace_wtime() - t0;
        }
        tg /= (double)reps;
        FID_PRINT("\"bench\": \"fshmem_bandwidth\", \"packet\": %ld, \"bytes\": %ld, \"put_mb_s\": %.3f, "
                  "\"get_mb_s\": %.3f",
                  packet, n, (double)n / tp / 1e6, (double)n / tg / 1e6);
      }
    }
    shmem_barrier_all();
    shmem_free(buf);
    free(local);
  } else {
    if (me == 0) fprintf(stderr, "fshmem_putget: unknown --mode '%s' (latency, bandwidth)\n", mode);
    shmem_finalize();
    return 2;
  }
  shmem_finalize();
  return 0;
}
