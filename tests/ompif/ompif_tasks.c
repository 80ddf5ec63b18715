/* OMPIF inside tasks, every rank a device (interlace run -n N), meant for
 * INTERLACE_TASK_WORKERS=1: each rank spawns a task that receives from its left
 * neighbour, then a task that sends to its right one. With one worker the receive task
 * blocks first; the ring completes only if a blocked task lends its worker's core. */
#include <interlace/tasks.h>
#include <ompif.h>

#include "check.h"

enum { N = 300000 }; /* above the eager limit: the send also waits for its receiver */

struct msg { int* buf; int peer; };

static void recv_task(void* p) {
  struct msg* m = p;
  OMPIF_Recv(m->buf, N, OMPIF_INT, m->peer, 9, OMPIF_COMM_WORLD);
}

static void send_task(void* p) {
  struct msg* m = p;
  OMPIF_Send(m->buf, N, OMPIF_INT, m->peer, 9, OMPIF_COMM_WORLD);
}

int main(void) {
  int rank = OMPIF_Comm_rank(OMPIF_COMM_WORLD), size = OMPIF_Comm_size(OMPIF_COMM_WORLD);
  int* in = malloc(N * sizeof(int));
  int* out = malloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) out[i] = rank * 7 + i, in[i] = -1;
  struct msg r = {in, (rank + size - 1) % size}, s = {out, (rank + 1) % size};
  il_task_dep_t rd = {in, N * (long long)sizeof(int), IL_TASK_OUT};
  il_task_dep_t sd = {out, N * (long long)sizeof(int), IL_TASK_IN};
  CHECK(il_task_spawn(recv_task, &r, &rd, 1, 0) == 0, "%s", il_task_last_error());
  CHECK(il_task_spawn(send_task, &s, &sd, 1, 0) == 0, "%s", il_task_last_error());
  CHECK(il_task_wait() == 0, "%s", il_task_last_error());
  for (int i = 0; i < N; ++i)
    CHECK(in[i] == r.peer * 7 + i, "[%d] = %d from %d", i, in[i], r.peer);
  printf("OK ompif_tasks rank %d (%d workers)\n", rank, il_task_workers());
  free(in);
  free(out);
  return 0;
}
