/* One-sided MPI benchmark, the same source for interlace, Open MPI and MPICH
 * (bench/run_rma.py builds and runs it three ways). Two ranks; rank 0 is the origin,
 * rank 1 the target (it waits in MPI_Barrier, an MPI call, so every implementation
 * can progress there).
 *   <op>_<mode>_latency_us:     one operation and its completion (put, get, acc = MPI_SUM
 *                               of doubles); mode passive = MPI_Win_flush inside a
 *                               lock_all epoch, fence = MPI_Win_fence on both ranks,
 *                               lock = MPI_Win_lock (shared), the operation, MPI_Win_unlock
 *   <op>_<mode>_bandwidth_GBps: BENCH_WINDOW operations, then one completion (passive, fence)
 *   create_<op>_<mode>_latency_us: the same latencies on a window from MPI_Win_create
 *                               over malloc'd memory (interlace: its message carrier)
 *   shared_{peer,local}_copy_GBps: memcpy into a peer's segment of an
 *                               MPI_Win_allocate_shared window vs into private memory
 *   shared_{peer,local}_access_ns: one 8-byte load+store, peer segment vs private
 * Rank 0 prints one JSON line per (metric, size) (bench_common.h's format). */
#include "bench_common.h"

#include <mpi.h>

static int rank;
static char *src, *mem;
static MPI_Win win;
enum { PUT, GET, ACC };
static const char *op_name[] = {"put", "get", "acc"};
enum { PASSIVE, FENCE, LOCK };
static const char *mode_name[] = {"passive", "fence", "lock"};

static void issue(int op, size_t n) {
  if (op == PUT) MPI_Put(src, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win);
  else if (op == GET) MPI_Get(src, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win);
  else MPI_Accumulate(src, (int)(n / 8), MPI_DOUBLE, 1, 0, (int)(n / 8), MPI_DOUBLE, MPI_SUM, win);
}

static int agree(int n) {
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return n;
}

/* Seconds for `iters` rounds of `batch` operations, each round completed. */
static double run(int op, int mode, size_t n, int iters, int batch) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = bench_now();
  if (mode == FENCE) {
    for (int i = 0; i < iters; i++) {
      if (rank == 0)
        for (int b = 0; b < batch; b++) issue(op, n);
      MPI_Win_fence(0, win);
    }
  } else if (mode == LOCK && rank == 0) {
    for (int i = 0; i < iters; i++) {
      MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
      for (int b = 0; b < batch; b++) issue(op, n);
      MPI_Win_unlock(1, win);
    }
  } else if (mode == PASSIVE && rank == 0) {
    for (int i = 0; i < iters; i++) {
      for (int b = 0; b < batch; b++) issue(op, n);
      MPI_Win_flush(1, win);
    }
  }
  double t = bench_now() - t0;
  MPI_Barrier(MPI_COMM_WORLD);
  return t;
}

static void verify(size_t n) {
  /* A put of a known pattern, read back by get: a transport that loses data fails. */
  memset(src, bench_pattern(n), n);
  if (rank == 0) {
    MPI_Put(src, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win);
    MPI_Win_flush(1, win);
    memset(src, 0, n);
    MPI_Get(src, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win);
    MPI_Win_flush(1, win);
    size_t bad = bench_check(src, n);
    if (bad) {
      fprintf(stderr, "mpi_rma_bench: %zu of %zu bytes wrong\n", bad, n);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
}

/* create: a window from MPI_Win_create over malloc'd memory, latencies only. */
static void one_sided(const bench_opts *o, int create) {
  double v[BENCH_MAX_REPS];
  char metric[80];
  if (create) {
    mem = aligned_alloc(4096, o->bw_max);
    MPI_Win_create(mem, (MPI_Aint)o->bw_max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  } else {
    MPI_Win_allocate((MPI_Aint)o->bw_max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  }
  memset(mem, 0, o->bw_max);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int mode = PASSIVE; mode <= LOCK; mode++) {
    if (mode == FENCE) MPI_Win_fence(0, win);
    else if (mode == PASSIVE) MPI_Win_lock_all(0, win);
    for (int op = PUT; op <= ACC; op++) {
      for (size_t n = o->lat ? o->lat_min : 0; n; n = bench_next(n, o->lat_step, o->lat_max)) {
        run(op, mode, n, BENCH_LAT_WARMUP, 1);
        double warm = run(op, mode, n, BENCH_LAT_WARMUP, 1) / BENCH_LAT_WARMUP;
        int iters = agree(bench_calibrate(warm, o->quick, 0));
        for (int r = 0; r < o->reps; r++) v[r] = run(op, mode, n, iters, 1) / iters * 1e6;
        snprintf(metric, sizeof metric, "%s%s_%s_latency_us", create ? "create_" : "", op_name[op], mode_name[mode]);
        if (rank == 0) bench_report(o->label, metric, n, v, o->reps, 0, iters);
      }
      for (size_t n = o->bw && !create && mode != LOCK ? o->bw_min : 0; n; n = bench_next(n, o->bw_step, o->bw_max)) {
        run(op, mode, n, 1, BENCH_WINDOW);
        double warm = run(op, mode, n, 1, BENCH_WINDOW);
        int iters = agree(bench_calibrate(warm, o->quick, 1));
        int reps = bench_bw_reps(n, o);
        for (int r = 0; r < reps; r++) v[r] = (double)n * BENCH_WINDOW * iters / run(op, mode, n, iters, BENCH_WINDOW) / 1e9;
        snprintf(metric, sizeof metric, "%s_%s_bandwidth_GBps", op_name[op], mode_name[mode]);
        if (rank == 0) bench_report(o->label, metric, n, v, reps, 1, iters);
      }
    }
    if (mode == PASSIVE) {
      verify(o->lat_min);
      verify(o->bw_max);
      MPI_Win_unlock_all(win);
    } else if (mode == FENCE) {
      MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    }
  }
  MPI_Win_free(&win);
  if (create) free(mem);
}

/* Shared window: rank 0 copies into rank 1's segment, and into private memory. */
static void shared(const bench_opts *o) {
  double v[BENCH_MAX_REPS];
  char *seg;
  MPI_Win_allocate_shared((MPI_Aint)o->bw_max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &seg, &win);
  MPI_Aint sz;
  int du;
  char *peer;
  MPI_Win_shared_query(win, 1, &sz, &du, &peer);
  char *local = aligned_alloc(4096, o->bw_max);
  memset(local, 0, o->bw_max);
  memset(seg, 0, o->bw_max);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int where = 0; where < 2; where++) {
      char *dst = where ? local : peer;
      for (size_t n = o->bw_min; n; n = bench_next(n, o->bw_step, o->bw_max)) {
        int iters = (int)(((size_t)256 << 20) / n / (o->quick ? 8 : 1)) + 1;
        for (int r = 0; r < o->reps; r++) {
          double t0 = bench_now();
          for (int i = 0; i < iters; i++) {
            memcpy(dst, src, n);
            __asm__ __volatile__("" ::: "memory");
          }
          v[r] = (double)n * iters / (bench_now() - t0) / 1e9;
        }
        bench_report(o->label, where ? "shared_local_copy_GBps" : "shared_peer_copy_GBps", n, v, o->reps, 1, iters);
      }
      volatile long *p = (volatile long *)dst;
      const int iters = o->quick ? 1 << 20 : 1 << 24;
      for (int r = 0; r < o->reps; r++) {
        double t0 = bench_now();
        for (int i = 0; i < iters; i++) p[i & 63] = p[(i + 1) & 63] + 1;
        v[r] = (bench_now() - t0) / iters * 1e9;
      }
      bench_report(o->label, where ? "shared_local_access_ns" : "shared_peer_access_ns", 8, v, o->reps, 0, iters);
    }
  }
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  free(local);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "mpi_rma_bench: needs exactly 2 ranks, got %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  bench_opts o = bench_parse(argc, argv);
  int only_shared = 0, no_shared = 0, no_create = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--shared")) only_shared = 1;
    if (!strcmp(argv[i], "--no-shared")) no_shared = 1;
    if (!strcmp(argv[i], "--no-create")) no_create = 1;
  }
  /* Latency sizes up to 64 KiB; bandwidth up to 4 MiB (16 MiB without --quick):
   * 64 operations of the largest size must fit the window and the runtime. */
  if (o.bw_max > ((size_t)16 << 20)) o.bw_max = (size_t)16 << 20;
  bench_pin(rank);
  src = aligned_alloc(4096, o.bw_max);
  memset(src, 1, o.bw_max);
  if (!only_shared) one_sided(&o, 0);
  if (!only_shared && !no_create) one_sided(&o, 1);
  if (!no_shared) shared(&o);
  free(src);
  MPI_Finalize();
  return 0;
}
