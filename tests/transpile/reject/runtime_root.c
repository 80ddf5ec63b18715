/* expect: MPI_Bcast (the root comes from the command line: not a compile-time rank) */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  int rank, v = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int root = argc > 1 ? atoi(argv[1]) : 0;
  MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD); /* here */
  MPI_Finalize();
  return 0;
}
