/* N-body, version (b): Algorithm 1 of the seed paper with OMPIF and tasks. Every rank
 * is a device (no host): started with `interlace run -n P ./nbody_ompif ...`.
 *
 * Each rank spawns calculate_forces(i, j) for every block i and its own blocks j, waits,
 * shares its force blocks with the in-place OMPIF_Allgather (Fig. 4) and spawns
 * update_particles for every block (every rank keeps all particles, as the paper's
 * devices do). Dependencies:
 *   calculate_forces(i, j): in particles[i], in particles[j], inout forces[j]
 *     (inout, not commutative: the tasks that add into one block run in spawn order, so
 *     every run gives the same bits; they could not run at once either way);
 *   update_particles(i):    inout particles[i], inout forces[i] (it clears them).
 * So the updates of one step overlap the force tasks of the next, as in the paper.
 * Workers per rank: INTERLACE_TASK_WORKERS (default: the cores the rank may use). */
#include <ompif.h>

#include "nbody_common.h"
#include "nbody_tasks.h"

static nb_particle* P;
static float* F;
static long BS, NB;

static void calc_task(void* arg) {
  long k = (long)(intptr_t)arg, i = k / NB, j = k % NB;
  nb_calculate_forces(P + i * BS, P + j * BS, F + 3 * j * BS, BS);
}

static void update_task(void* arg) {
  long i = (long)(intptr_t)arg;
  nb_update_particles(P + i * BS, F + 3 * i * BS, BS);
}

int main(int argc, char** argv) {
  int rank = OMPIF_Comm_rank(OMPIF_COMM_WORLD), size = OMPIF_Comm_size(OMPIF_COMM_WORLD);
  nb_args a = nb_parse(argc, argv, size);
  BS = a.bs;
  NB = a.n / a.bs;
  long per = NB / size, first = per * rank;
  P = malloc(sizeof(nb_particle) * a.n);
  F = calloc(3 * a.n, sizeof(float));
  if (!P || !F) { fprintf(stderr, "nbody_ompif: out of memory for n=%ld\n", a.n); return 1; }
  nb_init(P, a.n, a.seed);
  const size_t pbytes = sizeof(nb_particle) * BS, fbytes = sizeof(float) * 3 * BS;
  float times[size];
  OMPIF_Allgather(times, 1, OMPIF_FLOAT, OMPIF_COMM_WORLD);  /* start together */
  double t0 = nb_now();
  for (long t = 0; t < a.iters; t++) {
    for (long i = 0; i < NB; i++)
      for (long j = first; j < first + per; j++) {
        nb_dep deps[3] = {NB_IN(P + i * BS, pbytes), NB_IN(P + j * BS, pbytes),
                          NB_INOUT(F + 3 * j * BS, fbytes)};
        nb_spawn(calc_task, (void*)(intptr_t)(i * NB + j), deps, 3);
      }
    nb_taskwait();
    OMPIF_Allgather(F, (int)(3 * per * BS), OMPIF_FLOAT, OMPIF_COMM_WORLD);
    for (long i = 0; i < NB; i++) {
      nb_dep deps[2] = {NB_INOUT(P + i * BS, pbytes), NB_INOUT(F + 3 * i * BS, fbytes)};
      nb_spawn(update_task, (void*)(intptr_t)i, deps, 2);
    }
  }
  nb_taskwait();
  double seconds = nb_now() - t0;
  /* every rank's time counts: the slowest is the run's */
  times[rank] = (float)seconds;
  OMPIF_Allgather(times, 1, OMPIF_FLOAT, OMPIF_COMM_WORLD);
  for (int r = 0; r < size; r++)
    if (times[r] > seconds) seconds = times[r];
  int rc = 0;
  if (rank == 0) rc = nb_report("ompif", size, &a, seconds, P);
  free(P);
  free(F);
  return rc;
}
