/* expect: MPI_Bcast (the datatype is a variable, not a predefined MPI datatype) */
#include <mpi.h>

int main(int argc, char **argv)
{
  int v[4] = {0};
  MPI_Datatype t = MPI_INT;
  MPI_Init(&argc, &argv);
  MPI_Bcast(v, 4, t, 0, MPI_COMM_WORLD); /* here */
  MPI_Finalize();
  return 0;
}
