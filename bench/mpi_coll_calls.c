/* N 8-byte collectives on MPI_COMM_WORLD: mode a (MPI_Barrier), r (MPI_Reduce of two floats),
   t (MPI_Alltoall of two floats per rank). bench/count_calls.sh counts instructions per
   call on one rank with callgrind, for interlace and for Open MPI (mpicc.openmpi). */
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = atoi(argv[1]);
  char mode = argv[2][0];
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  float a[64] = {0}, b[64];
  for (int i = 0; i < n; ++i) {
    if (mode == 'a') MPI_Barrier(MPI_COMM_WORLD);
    else if (mode == 'r') MPI_Reduce(a, b, 2, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    else MPI_Alltoall(a, 2, MPI_FLOAT, b, 2, MPI_FLOAT, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
