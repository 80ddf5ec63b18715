/* expect: MPI_Alltoallv (not supported by the transpiler) */
#include <mpi.h>

int main(int argc, char **argv)
{
  int s[8], r[8], c[8] = {1, 1, 1, 1, 1, 1, 1, 1}, d[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  MPI_Init(&argc, &argv);
  MPI_Alltoallv(s, c, d, MPI_INT, r, c, d, MPI_INT, MPI_COMM_WORLD); /* here */
  MPI_Finalize();
  return 0;
}
