/* expect: MPI_IN_PLACE (in-place collectives are not supported) */
#include <mpi.h>

int main(int argc, char **argv)
{
  int v[4] = {1, 2, 3, 4};
  MPI_Init(&argc, &argv);
  MPI_Reduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* here */
  MPI_Finalize();
  return 0;
}
