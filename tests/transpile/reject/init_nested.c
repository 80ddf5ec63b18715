/* expect: MPI_Init (called in a helper: the variant's start-up check needs it in main) */
#include <mpi.h>

static void start(int *argc, char ***argv) { MPI_Init(argc, argv); }

int main(int argc, char **argv) /* here */
{
  start(&argc, &argv);
  MPI_Finalize();
  return 0;
}
