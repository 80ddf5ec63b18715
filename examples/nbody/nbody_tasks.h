/* The task calls the N-body uses, over interlace's C task API (interlace/tasks.h), in
 * one place: the versions spell dependencies as NB_IN/NB_INOUT and spawn with nb_spawn. */
#ifndef NBODY_TASKS_H
#define NBODY_TASKS_H
#include <interlace/tasks.h>

typedef il_dep nb_dep;
#define NB_IN(p, bytes) ((il_dep){(p), (bytes), IL_IN})
#define NB_INOUT(p, bytes) ((il_dep){(p), (bytes), IL_INOUT})

static inline void nb_spawn(void (*fn)(void*), void* arg, const nb_dep* deps, int ndeps) {
  il_task_spawn(fn, arg, deps, ndeps, 0);
}
static inline void nb_taskwait(void) { il_task_wait(); }
#endif
