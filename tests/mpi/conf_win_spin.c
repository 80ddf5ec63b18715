/* ranks: 2 3 4 */
/* Spinning on one's own window memory, with MPI_Win_sync and MPI_Win_flush to oneself as
 * the only MPI calls in the loop (the idiom of mpi4py.util.sync's locks): the process
 * must still serve the locks, puts and unlocks that others aim at it, or a token passed
 * around the ring through passive-target puts never gets past the first spinner. Run on a
 * window from MPI_Win_allocate and on one from MPI_Win_create (the two carriers). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int me, np;

static void fail(const char *what, long got, long want) {
  fprintf(stderr, "FAIL: rank %d: %s: got %ld, want %ld\n", me, what, got, want);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Wait inside a lock_all epoch until mem[0] holds a non-zero token; return it. */
static long spin_for_token(volatile long *mem, MPI_Win win) {
  MPI_Win_lock_all(0, win);
  long got;
  for (;;) {
    MPI_Win_sync(win);
    got = mem[0];
    if (got != 0) break;
    MPI_Win_flush(me, win);
  }
  MPI_Win_unlock_all(win);
  return got;
}

static void pass_token(long token, int to, MPI_Win win) {
  MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win);
  MPI_Put(&token, 1, MPI_LONG, to, 0, 1, MPI_LONG, win);
  MPI_Win_unlock(to, win);
}

static void ring(long *mem, MPI_Win win, const char *kind) {
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
  mem[0] = 0;
  MPI_Win_unlock(me, win);
  MPI_Barrier(MPI_COMM_WORLD);
  /* Rank 0 starts the token; each rank adds one and passes it on; back at rank 0 it
   * has gone through every rank once. */
  if (me == 0) pass_token(1, 1, win);
  long token = spin_for_token(mem, win);
  const long want = me == 0 ? np : me;
  if (token != want) fail(kind, token, want);
  if (me != 0) pass_token(token + 1, (me + 1) % np, win);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);

  long *mem;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  ring(mem, win, "token through an allocated window");
  MPI_Win_free(&win);

  long *own = malloc(sizeof(long));
  MPI_Win_create(own, (MPI_Aint)sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  ring(own, win, "token through a created window");
  MPI_Win_free(&win);
  free(own);

  if (me == 0) printf("OK conf_win_spin\n");
  MPI_Finalize();
  return 0;
}
