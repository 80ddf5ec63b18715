/* N-body, version (b): Algorithm 1 of the seed paper with OMPIF and tasks, every rank a
 * device (no host): `interlace run -n P ./nbody_ompif --n 4096 --bs 256 --iters 4`.
 * The algorithm and its dependencies: nbody_tasks.h. Every rank keeps all particles
 * (as the paper's devices do) and rank 0 reports. Task workers per rank:
 * INTERLACE_TASK_WORKERS (default: the cores the rank may use). */
#include "nbody_tasks.h"

int main(int argc, char** argv) {
  int rank = OMPIF_Comm_rank(OMPIF_COMM_WORLD), size = OMPIF_Comm_size(OMPIF_COMM_WORLD);
  nb_args a = nb_parse(argc, argv, size);
  nb_particle* p = malloc(sizeof(nb_particle) * a.n);
  float* f = calloc(3 * a.n, sizeof(float));
  if (!p || !f) { fprintf(stderr, "nbody_ompif: out of memory for n=%ld\n", a.n); return 1; }
  nb_init(p, a.n, a.seed);
  double seconds = nbt_run(p, f, &a);
  int rc = rank == 0 ? nb_report("ompif", size, &a, seconds, p) : 0;
  free(p);
  free(f);
  return rc;
}
