/* MPI baseline for bench/coll_bench.cpp: the same collectives, sizes and statistics
 * (median of 5 repetitions of the mean over K iterations, slowest rank), printed in
 * the same columns with the MPI library's own algorithm choice ("mpi").
 *   mpicc.openmpi -O2 bench/mpi_coll_bench.c -o mpi_coll_bench && mpirun -n 2 ./mpi_coll_bench
 *   [--max BYTES] [--iters K] [--step F] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void one(int k, size_t bytes, char* a, char* b) {
  int count = (int)(bytes / 4);
  switch (k) {
    case 0: MPI_Barrier(MPI_COMM_WORLD); break;
    case 1: MPI_Bcast(a, count, MPI_FLOAT, 0, MPI_COMM_WORLD); break;
    case 2: MPI_Reduce(a, b, count, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case 3: MPI_Allreduce(a, b, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); break;
    case 4: MPI_Allgather(a, count, MPI_FLOAT, b, count, MPI_FLOAT, MPI_COMM_WORLD); break;
    case 5: MPI_Alltoall(a, count, MPI_FLOAT, b, count, MPI_FLOAT, MPI_COMM_WORLD); break;
  }
}

int main(int argc, char** argv) {
  size_t max = 16u << 20;
  int iters_small = 200, step = 4;
  MPI_Init(&argc, &argv);
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--max") && i + 1 < argc) max = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters_small = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--step") && i + 1 < argc) step = atoi(argv[++i]);
  }
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  char* a = calloc(max * n + 64, 1);
  char* b = calloc(max * n + 64, 1);
  const char* names[] = {"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"};
  for (int k = 0; k < 6; ++k) {
    for (size_t bytes = 8; bytes <= max; bytes *= step) {
      if (k == 0 && bytes > 8) break;
      int iters = iters_small * 4096 / (bytes > 4096 ? bytes : 4096);
      if (iters < 3) iters = 3;
      double reps[5];
      for (int r = 0; r < 5; ++r) {
        one(k, bytes, a, b);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < iters; ++it) one(k, bytes, a, b);
        reps[r] = (MPI_Wtime() - t0) * 1e6 / iters;
      }
      qsort(reps, 5, sizeof reps[0], cmp);
      double t = reps[2], tmax;
      MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (rank == 0) printf("%-10s %-20s %10zu %3d %12.2f\n", names[k], "mpi", k == 0 ? (size_t)0 : bytes, n, tmax);
      fflush(stdout);
    }
  }
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
