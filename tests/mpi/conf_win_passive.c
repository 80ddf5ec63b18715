/* ranks: 1 2 3 4 8 */
/* Passive-target one-sided communication: exclusive and shared locks, lock_all,
 * flush and its local forms, MPI_Win_sync, the request-based operations, and a
 * lock-protected read-modify-write by every rank at once that must lose no update. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int me, np;

static void expect(long got, long want, const char *what) {
  if (got != want) {
    fprintf(stderr, "FAIL: rank %d: %s: got %ld, want %ld\n", me, what, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int n = np + 5;
  long *mem;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
  for (int i = 0; i < n; ++i) mem[i] = 0;
  MPI_Win_unlock(me, win);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Exclusive lock: each rank writes its slot on every target, one target at a time. */
  for (int t = 0; t < np; ++t) {
    long v = 1000L * me + t;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
    MPI_Put(&v, 1, MPI_LONG, t, me, 1, MPI_LONG, win);
    MPI_Win_unlock(t, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
  for (int r = 0; r < np; ++r) expect(mem[r], 1000L * r + me, "put under an exclusive lock");
  MPI_Win_unlock(me, win);

  /* A read-modify-write under an exclusive lock on rank 0 by every rank, 20 times:
   * the lock must make each get+put pair atomic, so no increment is lost. */
  for (int k = 0; k < 20; ++k) {
    long v;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&v, 1, MPI_LONG, 0, np, 1, MPI_LONG, win);
    MPI_Win_flush(0, win);
    ++v;
    MPI_Put(&v, 1, MPI_LONG, 0, np, 1, MPI_LONG, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    expect(mem[np], 20L * np, "exclusive-lock read-modify-write from every rank");
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* The same, 500 times with some work between get and put: a lock that did not
   * exclude would lose increments here even when ranks share few cores (the 20 short
   * rounds above rarely overlap). Counter in slot np + 4. */
  for (int k = 0; k < 500; ++k) {
    long v;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&v, 1, MPI_LONG, 0, np + 4, 1, MPI_LONG, win);
    MPI_Win_flush(0, win);
    for (volatile int spin = 0; spin < 10000; ++spin) {
    }
    ++v;
    MPI_Put(&v, 1, MPI_LONG, 0, np + 4, 1, MPI_LONG, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    expect(mem[np + 4], 500L * np, "exclusive-lock read-modify-write with work inside, every rank");
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* lock_all with flush: put to the next rank, flush it, get it back from there. */
  const int next = (me + 1) % np, prev = (me + np - 1) % np;
  MPI_Win_lock_all(0, win);
  long v = 7L * me + 3, back = -1;
  MPI_Put(&v, 1, MPI_LONG, next, np + 1, 1, MPI_LONG, win);
  MPI_Win_flush(next, win);
  MPI_Get(&back, 1, MPI_LONG, next, np + 1, 1, MPI_LONG, win);
  MPI_Win_flush_local(next, win);
  expect(back, v, "get after flush sees the put");
  /* Request-based forms. */
  MPI_Request req[3];
  long w2 = 11L * me, r2 = -1, acc = 1;
  MPI_Rput(&w2, 1, MPI_LONG, next, np + 2, 1, MPI_LONG, win, &req[0]);
  MPI_Raccumulate(&acc, 1, MPI_LONG, 0, np + 3, 1, MPI_LONG, MPI_SUM, win, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MPI_Win_flush_all(win);
  MPI_Rget(&r2, 1, MPI_LONG, next, np + 2, 1, MPI_LONG, win, &req[2]);
  MPI_Wait(&req[2], MPI_STATUS_IGNORE);
  expect(r2, w2, "Rget after Rput and flush_all");
  MPI_Win_flush_local_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
  MPI_Win_sync(win);
  expect(mem[np + 1], 7L * prev + 3, "lock_all put from the previous rank");
  expect(mem[np + 2], 11L * prev, "Rput from the previous rank");
  if (me == 0) expect(mem[np + 3], np, "Raccumulate from every rank");
  MPI_Win_unlock(me, win);

  /* MPI_MODE_NOCHECK and MPI_Rget_accumulate with MPI_NO_OP (an atomic read). */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, next, MPI_MODE_NOCHECK, win);
  long got = -1;
  MPI_Rget_accumulate(NULL, 0, MPI_LONG, &got, 1, MPI_LONG, next, me, 1, MPI_LONG, MPI_NO_OP, win, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  MPI_Win_unlock(next, win);
  expect(got, 1000L * me + next, "Rget_accumulate MPI_NO_OP");
  MPI_Win_free(&win);
  if (me == 0) printf("OK conf_win_passive\n");
  MPI_Finalize();
  return 0;
}
