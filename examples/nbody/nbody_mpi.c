/* N-body, version (c): Algorithm 1 in plain MPI, one core per rank, no tasks: the
 * baseline. Each rank computes the forces on its own blocks (against all blocks),
 * MPI_Allgather in place shares the force blocks, and every rank updates every
 * particle (as the paper's devices do). Standard MPI only: it builds with interlace's
 * mpi.h (CMake or interlace-cc) and with Open MPI's mpicc unchanged.
 *   interlace run -n 2 ./nbody_mpi --n 4096 --bs 256 --iters 4 [--check]
 *   mpirun -n 2 ./nbody_mpi_ompi ... */
#include <mpi.h>

#include "nbody_common.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nb_args a = nb_parse(argc, argv, size);
  long nb = a.n / a.bs, bs = a.bs, per = nb / size, first = per * rank;
  nb_particle* p = malloc(sizeof(nb_particle) * a.n);
  float* f = calloc(3 * a.n, sizeof(float));
  if (!p || !f) { fprintf(stderr, "nbody_mpi: out of memory for n=%ld\n", a.n); MPI_Abort(MPI_COMM_WORLD, 1); }
  nb_init(p, a.n, a.seed);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = nb_now();
  for (long t = 0; t < a.iters; t++) {
    for (long i = 0; i < nb; i++)
      for (long j = first; j < first + per; j++)
        nb_calculate_forces(p + i * bs, p + j * bs, f + 3 * j * bs, bs);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, f, (int)(3 * per * bs), MPI_FLOAT, MPI_COMM_WORLD);
    for (long i = 0; i < nb; i++) nb_update_particles(p + i * bs, f + 3 * i * bs, bs);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double seconds = nb_now() - t0;
  int rc = 0;
  if (rank == 0) rc = nb_report("mpi", size, &a, seconds, p);
  free(p);
  free(f);
  MPI_Finalize();
  return rc;
}
