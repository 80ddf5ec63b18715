/* An MPI program built with interlace's mpi.h, run by tests/slurm/run.sh under srun
 * and mpirun: a ring, an allreduce and the shared-memory split (locality). Prints
 * "launcher_mpi OK on N ranks" on rank 0 when every rank passed. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n, me, failures = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int right = (me + 1) % n, left = (me + n - 1) % n, got = -1;
  MPI_Sendrecv(&me, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (got != left) fprintf(stderr, "rank %d: ring got %d, expected %d\n", me, got, left), ++failures;
  long mine = me, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (sum != (long)n * (n - 1) / 2) fprintf(stderr, "rank %d: allreduce %ld\n", me, sum), ++failures;
  /* One host here: the shared-memory communicator holds every rank. */
  MPI_Comm shared;
  int shared_size = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  MPI_Comm_size(shared, &shared_size);
  if (shared_size != n) fprintf(stderr, "rank %d: shared size %d of %d\n", me, shared_size, n), ++failures;
  MPI_Comm_free(&shared);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && total == 0) printf("launcher_mpi OK on %d ranks\n", n);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
