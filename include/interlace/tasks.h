/* The C API of interlace's task runtime (docs/tasks.md): tasks with declared
 * accesses on memory regions, run by the process's shared executor
 * (interlace::task::process_executor(); INTERLACE_TASK_WORKERS workers). Dependency
 * semantics are OmpSs-2's: see docs/tasks.md. C99. */
#ifndef INTERLACE_TASKS_H
#define INTERLACE_TASKS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum il_task_access {
  IL_TASK_IN = 0,
  IL_TASK_OUT = 1,
  IL_TASK_INOUT = 2,
  IL_TASK_COMMUTATIVE = 3,
  IL_TASK_CONCURRENT = 4
} il_task_access_t;

/* `bytes` bytes from `addr`. Signed so that a negative length is reported (naming
 * it) instead of wrapping to a huge region. */
typedef struct il_task_dep {
  const void* addr;
  long long bytes;
  il_task_access_t access;
} il_task_dep_t;

/* Every call returns 0 or an error code (interlace::Errc: 2 invalid argument, ...);
 * il_task_last_error() describes the calling thread's last failure. */
#define IL_TASK_OK 0
#define IL_TASK_ERR_ARG 2

/* Spawns fn(arg) as a child of the calling task (top level outside any task), after
 * the earlier siblings its deps conflict with; higher priority runs first. */
int il_task_spawn(void (*fn)(void*), void* arg, const il_task_dep_t* deps, int ndeps,
                  int priority);
/* Waits for the calling task's children (top level: every top-level task). A failed
 * task (a C++ exception from its body) makes it return nonzero, with the message in
 * il_task_last_error(); its dependents were skipped. */
int il_task_wait(void);
/* Waits only for the earlier siblings whose accesses conflict with deps. */
int il_task_wait_on(const il_task_dep_t* deps, int ndeps);
/* The executor's worker count (starting it if needed); -1 if it cannot start (a bad
 * INTERLACE_TASK_WORKERS: see il_task_last_error()). */
int il_task_workers(void);
/* The calling thread's last error message ("" if none). */
const char* il_task_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
