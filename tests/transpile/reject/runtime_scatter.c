/* expect: MPI_Scatter (the chunk size is only known at run time) */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  int all[64], part[64];
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 4;
  MPI_Scatter(all, n, MPI_INT, part, n, MPI_INT, 0, MPI_COMM_WORLD); /* here */
  MPI_Finalize();
  return 0;
}
