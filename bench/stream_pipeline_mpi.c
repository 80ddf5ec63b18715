/* The bulk variant of bench/stream_pipeline.cpp over MPI: rank 0 computes all N
 * elements, sends them in one MPI_Send, rank 1 receives and computes on each.
 *   mpicc.openmpi -O2 stream_pipeline_mpi.c -o stream_pipeline_mpi
 *   mpirun.openmpi -np 2 --bind-to none ./stream_pipeline_mpi [--quick] [--n N] [--work W] */
#define _GNU_SOURCE /* sched_setaffinity in bench_common.h; mpi.h includes sched.h first */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "stream_work.h"

static int int_flag(int argc, char** argv, const char* flag, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!strcmp(argv[i], flag)) return atoi(argv[i + 1]);
  return fallback;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    fprintf(stderr, "stream_pipeline_mpi needs 2 ranks, got %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  bench_pin(rank);
  int quick = 0;
  for (int i = 1; i < argc; ++i) quick |= !strcmp(argv[i], "--quick");
  const int n = int_flag(argc, argv, "--n", quick ? PIPE_N_DEFAULT / 4 : PIPE_N_DEFAULT);
  const int work = int_flag(argc, argv, "--work", PIPE_WORK_DEFAULT);
  const int reps = quick ? 3 : 9;
  float* buf = (float*)malloc((size_t)n * sizeof(float));
  double t[32];
  for (int rep = 0; rep <= reps; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    if (rank == 0) {
      for (int i = 0; i < n; ++i) buf[i] = stream_work((float)i * 1e-6f, work);
      MPI_Send(buf, n, MPI_FLOAT, 1, 2, MPI_COMM_WORLD);
    } else {
      MPI_Recv(buf, n, MPI_FLOAT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      float acc = 0;
      for (int i = 0; i < n; ++i) acc += stream_work(buf[i], work);
      __asm__ volatile("" : : "x"(acc));
      if (rep > 0) t[rep - 1] = bench_now() - t0;
    }
  }
  if (rank == 1) {
    qsort(t, (size_t)reps, sizeof t[0], cmp);
    printf("{\"bench\": \"pipeline\", \"impl\": \"bulk-mpi\", \"size\": %d, \"value\": %.6g, \"unit\": \"ms\", "
           "\"reps\": %d}\n", n, t[reps / 2] * 1e3, reps);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
