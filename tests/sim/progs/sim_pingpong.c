/* An unchanged MPI program with globals, run as processes on the sim fabric by
 * tests/sim/sim_process_test.cpp (INTERLACE_FABRIC=sim):
 *   sim_pingpong           ranks 0 and 1 ping-pong one int; rank 0 prints
 *                          "latency_us X virtual V" (MPI_Wtime; V = interlace_wtime_is_virtual)
 *   sim_pingpong die       rank 1 dies holding the baton (right after a receive returned
 *                          to it); rank 0's receive from it must fail, not hang */
#include <interlace/clock.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int iterations = 10; /* a global: every rank process has its own */

int main(int argc, char** argv) {
  int rank, size, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "die") == 0) {
    if (rank == 1) {
      MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      _exit(3);
    }
    if (rank == 0) {
      MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("received from a dead rank\n");
    }
    MPI_Finalize();
    return 0;
  }
  if (rank < 2) {
    const int peer = 1 - rank;
    const double t0 = MPI_Wtime();
    for (int i = 0; i < iterations; ++i) {
      if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
      }
    }
    if (rank == 0)
      printf("latency_us %.6f virtual %d\n", (MPI_Wtime() - t0) / (2 * iterations) * 1e6,
             interlace_wtime_is_virtual());
  }
  MPI_Finalize();
  return 0;
}
