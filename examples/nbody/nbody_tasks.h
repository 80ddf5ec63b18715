/* Algorithm 1 on one device (seed paper section V-C3), shared by nbody_ompif.c (every
 * rank a device) and nbody_dist.c (a host spawns it as a distributed task): this rank's
 * force tasks, taskwait, the in-place OMPIF_Allgather of the force blocks (Fig. 4),
 * update tasks for every block. Dependencies:
 *   calculate_forces(i, j): in particles[i], in particles[j], inout forces[j]
 *     (inout, not commutative: the tasks adding into one block run in spawn order, so
 *     every run gives the same bits; they could not run at once either way);
 *   update_particles(i):    inout particles[i], inout forces[i] (it clears them).
 * So the updates of one step overlap the force tasks of the next, as in the paper. */
#ifndef NBODY_TASKS_H
#define NBODY_TASKS_H
#include "nbody_common.h"  /* first: it sets the feature macros */

#include <interlace/tasks.h>
#include <ompif.h>

static nb_particle* nbt_p;
static float* nbt_f;
static long nbt_bs, nbt_nb;

static void nbt_calc(void* arg) {
  long k = (long)(intptr_t)arg, i = k / nbt_nb, j = k % nbt_nb;
  nb_calculate_forces(nbt_p + i * nbt_bs, nbt_p + j * nbt_bs, nbt_f + 3 * j * nbt_bs, nbt_bs);
}

static void nbt_update(void* arg) {
  long i = (long)(intptr_t)arg;
  nb_update_particles(nbt_p + i * nbt_bs, nbt_f + 3 * i * nbt_bs, nbt_bs);
}

static void nbt_check(int rc, const char* what) {
  if (rc != 0) {
    fprintf(stderr, "nbody: %s failed: %s\n", what, il_task_last_error());
    exit(1);
  }
}

/* Runs a->iters steps on particles p (all n) with forces f (all n, zero); returns the
 * seconds of the slowest device. */
static double nbt_run(nb_particle* p, float* f, const nb_args* a) {
  int rank = OMPIF_Comm_rank(OMPIF_COMM_WORLD), size = OMPIF_Comm_size(OMPIF_COMM_WORLD);
  nbt_p = p; nbt_f = f; nbt_bs = a->bs; nbt_nb = a->n / a->bs;
  const long BS = nbt_bs, NB = nbt_nb, per = NB / size, first = per * rank;
  const long long pbytes = (long long)sizeof(nb_particle) * BS, fbytes = (long long)sizeof(float) * 3 * BS;
  float times[size];
  OMPIF_Allgather(times, 1, OMPIF_FLOAT, OMPIF_COMM_WORLD);  /* start together */
  double t0 = nb_now();
  for (long t = 0; t < a->iters; t++) {
    for (long i = 0; i < NB; i++)
      for (long j = first; j < first + per; j++) {
        il_task_dep_t deps[3] = {{p + i * BS, pbytes, IL_TASK_IN},
                                 {p + j * BS, pbytes, IL_TASK_IN},
                                 {f + 3 * j * BS, fbytes, IL_TASK_INOUT}};
        nbt_check(il_task_spawn(nbt_calc, (void*)(intptr_t)(i * NB + j), deps, 3, 0), "il_task_spawn");
      }
    nbt_check(il_task_wait(), "il_task_wait");
    OMPIF_Allgather(f, (int)(3 * per * BS), OMPIF_FLOAT, OMPIF_COMM_WORLD);
    for (long i = 0; i < NB; i++) {
      il_task_dep_t deps[2] = {{p + i * BS, pbytes, IL_TASK_INOUT}, {f + 3 * i * BS, fbytes, IL_TASK_INOUT}};
      nbt_check(il_task_spawn(nbt_update, (void*)(intptr_t)i, deps, 2, 0), "il_task_spawn");
    }
  }
  nbt_check(il_task_wait(), "il_task_wait");
  double seconds = nb_now() - t0;
  times[rank] = (float)seconds;
  OMPIF_Allgather(times, 1, OMPIF_FLOAT, OMPIF_COMM_WORLD);
  for (int r = 0; r < size; r++)
    if (times[r] > seconds) seconds = times[r];
  return seconds;
}
#endif
