/* expect: MPI_Reduce (its result is used, but the call becomes sends and receives) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  int v = 1, s = 0;
  MPI_Init(&argc, &argv);
  if (MPI_Reduce(&v, &s, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS) /* here */
    printf("failed\n");
  MPI_Finalize();
  return 0;
}
