/* expect: syntax (a GNU attribute: pycparser reads standard C) */
#include <mpi.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int x __attribute__((unused)) = 0; /* here */
  MPI_Finalize();
  return x;
}
