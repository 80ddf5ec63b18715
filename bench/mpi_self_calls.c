/* N 8-byte send+receive pairs to self on one rank, through mpi.h: mode b (MPI_Send +
   MPI_Recv) or i (MPI_Irecv + MPI_Isend + two MPI_Wait). bench/count_calls.sh counts
   instructions per pair with callgrind; bench/p2p_self_calls.cpp is the native twin. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = atoi(argv[1]);
  char mode = argv[2][0];
  double s = 1.0, r = 0.0;
  for (int i = 0; i < n; ++i) {
    if (mode == 'b') {
      MPI_Send(&s, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
      MPI_Recv(&r, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Request q[2];
      MPI_Irecv(&r, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &q[0]);
      MPI_Isend(&s, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &q[1]);
      MPI_Wait(&q[1], MPI_STATUS_IGNORE);
      MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    }
  }
  MPI_Finalize();
  return 0;
}
