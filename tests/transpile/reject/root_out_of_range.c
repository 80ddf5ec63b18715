/* expect: MPI_Reduce (root 9 is not a rank of the cluster) */
#include <mpi.h>

int main(int argc, char **argv)
{
  int v = 1, s = 0;
  MPI_Init(&argc, &argv);
  MPI_Reduce(&v, &s, 1, MPI_INT, MPI_SUM, 9, MPI_COMM_WORLD); /* here */
  MPI_Finalize();
  return 0;
}
