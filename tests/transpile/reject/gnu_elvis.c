/* expect: syntax (GNU's `a ?: b`: pycparser reads standard C) */
#include <mpi.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int x = argc ?: 1; /* here */
  MPI_Finalize();
  return x;
}
