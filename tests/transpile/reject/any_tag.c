/* expect: MPI_ANY_TAG (could match the expanded collectives' messages) */
#include <mpi.h>

int main(int argc, char **argv)
{
  int rank, v = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0)
    MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* here */
  else if (rank == 1)
    MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
