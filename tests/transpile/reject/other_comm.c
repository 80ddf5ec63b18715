/* expect: MPI_Gather (only MPI_COMM_WORLD is supported) */
#include <mpi.h>

int main(int argc, char **argv)
{
  int v = 1, all[8];
  MPI_Init(&argc, &argv);
  MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_SELF); /* here */
  MPI_Finalize();
  return 0;
}
