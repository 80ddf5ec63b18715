/* Spawns two copies of itself and has every process print its CPU mask and
 * INTERLACE_BIND_TO (tests/python/test_binding.py): children of a bound rank
 * must not be squeezed onto its one core. */
#define _GNU_SOURCE /* cpu_set_t and sched_getaffinity */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static void show(const char* who, int rank) {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  printf("%s %d CPUS", who, rank);
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set)) printf(" %d", c);
  const char* b = getenv("INTERLACE_BIND_TO");
  printf(" BIND_TO %s\n", b ? b : "(unset)");
  fflush(stdout);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (parent == MPI_COMM_NULL) {
    show("PARENT", rank);
    MPI_Comm inter;
    char* args[] = {"child", NULL};
    int rc = MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            MPI_ERRCODES_IGNORE);
    if (rc != MPI_SUCCESS) {
      fprintf(stderr, "MPI_Comm_spawn failed: %d\n", rc);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_disconnect(&inter);
  } else {
    show("CHILD", rank);
    MPI_Comm_disconnect(&parent);
  }
  MPI_Finalize();
  return 0;
}
