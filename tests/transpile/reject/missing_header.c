/* expect: preprocessor (a header that is not there) */
#include <mpi.h>
#include "not_there.h" /* here */

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  return 0;
}
