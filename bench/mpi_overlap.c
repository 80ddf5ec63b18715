/* Communication/computation overlap of non-blocking collectives, measured as the OSU
 * micro-benchmarks (osu_ibcast, osu_iallreduce, osu_ialltoall) do:
 *   t_pure    post + wait, nothing between (mean over the iterations)
 *   t_total   post, compute for about t_pure without calling MPI, wait
 *   t_compute the compute alone
 *   overlap%  = max(0, 100 * (1 - (t_total - t_compute) / t_pure))
 * Times are averaged over the ranks (as OSU reduces them) before the formula.
 * The compute is a busy loop on the clock: no MPI call, so only a library that
 * progresses by itself (a progress thread, offload) hides communication behind it.
 *   mpicc -O2 bench/mpi_overlap.c -o mpi_overlap && mpirun -n 4 ./mpi_overlap
 *   [--ops ibcast,iallreduce,ialltoall] [--sizes 8,1024,65536,1048576] [--iters N]
 * Prints one line per (op, bytes) on rank 0:
 *   overlap OP BYTES T_PURE_US T_TOTAL_US T_COMPUTE_US OVERLAP_PCT */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Busy work for `s` seconds that touches no MPI state. */
static volatile double sink;
static void compute_for(double s) {
  const double end = now_s() + s;
  double x = 1.0;
  while (now_s() < end)
    for (int i = 0; i < 64; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

enum { IBCAST, IALLREDUCE, IALLTOALL };
static const char* const names[] = {"ibcast", "iallreduce", "ialltoall"};

/* `bytes` is the message size as OSU counts it: the buffer of ibcast/iallreduce, the
 * block sent to each peer in ialltoall. */
static void post(int op, size_t bytes, char* a, char* b, MPI_Request* req) {
  const int count = (int)(bytes / 4 ? bytes / 4 : 1);
  switch (op) {
    case IBCAST: MPI_Ibcast(a, count, MPI_FLOAT, 0, MPI_COMM_WORLD, req); break;
    case IALLREDUCE: MPI_Iallreduce(a, b, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, req); break;
    default: MPI_Ialltoall(a, count, MPI_FLOAT, b, count, MPI_FLOAT, MPI_COMM_WORLD, req); break;
  }
}

static double mean_over_ranks(double v, int n) {
  double sum = 0;
  MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum / n;
}

int main(int argc, char** argv) {
  const char* ops = "ibcast,iallreduce,ialltoall";
  const char* sizes = "8,1024,65536,1048576";
  int iters_arg = 0;
  MPI_Init(&argc, &argv);
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--ops") && i + 1 < argc) ops = argv[++i];
    else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters_arg = atoi(argv[++i]);
    else {
      fprintf(stderr, "mpi_overlap: unknown argument '%s'\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  size_t max = 0;
  for (const char* p = sizes; *p;) {
    size_t v = strtoull(p, (char**)&p, 10);
    if (v > max) max = v;
    if (*p == ',') ++p;
    else if (*p) { fprintf(stderr, "mpi_overlap: bad --sizes '%s'\n", sizes); MPI_Abort(MPI_COMM_WORLD, 2); }
  }
  char* a = calloc(max * (size_t)n + 64, 1);
  char* b = calloc(max * (size_t)n + 64, 1);
  for (int op = 0; op < 3; ++op) {
    if (!strstr(ops, names[op])) continue;
    for (const char* p = sizes; *p;) {
      const size_t bytes = strtoull(p, (char**)&p, 10);
      if (*p == ',') ++p;
      const int iters = iters_arg > 0 ? iters_arg : bytes >= (1u << 20) ? 20 : bytes >= 65536 ? 50 : 200;
      MPI_Request req;
      for (int i = 0; i < iters / 10 + 2; ++i) {  /* warm-up */
        post(op, bytes, a, b, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = now_s();
      for (int i = 0; i < iters; ++i) {
        post(op, bytes, a, b, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      const double pure = mean_over_ranks((now_s() - t0) / iters, n);
      /* Every rank computes for the same time (the mean pure latency), as OSU does. */
      double total = 0, comp = 0;
      MPI_Barrier(MPI_COMM_WORLD);
      for (int i = 0; i < iters; ++i) {
        const double s = now_s();
        post(op, bytes, a, b, &req);
        const double c0 = now_s();
        compute_for(pure);
        comp += now_s() - c0;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        total += now_s() - s;
      }
      total = mean_over_ranks(total / iters, n);
      comp = mean_over_ranks(comp / iters, n);
      double overlap = 100.0 * (1.0 - (total - comp) / pure);
      if (overlap < 0) overlap = 0;
      if (rank == 0)
        printf("overlap %s %zu %.2f %.2f %.2f %.1f\n", names[op], bytes, pure * 1e6, total * 1e6,
               comp * 1e6, overlap);
      fflush(stdout);
    }
  }
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
