/* ranks: 1 2 3 4 8 */
/* Shared-memory windows: MPI_Win_allocate_shared on the ranks of one host
 * (MPI_Comm_split_type would pick them; the test runs on one host, so the world),
 * MPI_Win_shared_query for every rank (and MPI_PROC_NULL), direct load/store into
 * a neighbour's segment ordered by MPI_Win_sync and a barrier, segments contiguous
 * in rank order by default, and RMA calls on the same window. */
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
  /* Rank r has r+1 longs (different sizes show the contiguous layout). */
  const int mine = me + 1;
  long *base;
  MPI_Win win;
  MPI_Win_allocate_shared((MPI_Aint)(mine * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                          &win);
  int *flavor, flag;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  expect(*flavor, MPI_WIN_FLAVOR_SHARED, "MPI_WIN_CREATE_FLAVOR");
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  for (int i = 0; i < mine; ++i) base[i] = 1000L * me + i;
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  long *seg0 = NULL;
  for (int r = 0; r < np; ++r) {
    MPI_Aint size;
    int du;
    long *p;
    MPI_Win_shared_query(win, r, &size, &du, &p);
    expect(size, (r + 1) * (long)sizeof(long), "shared_query size");
    expect(du, sizeof(long), "shared_query disp_unit");
    if (r == 0) seg0 = p;
    expect(p - seg0, (long)r * (r + 1) / 2, "segments contiguous in rank order");
    for (int i = 0; i <= r; ++i) expect(p[i], 1000L * r + i, "load from a peer's segment");
  }
  MPI_Aint size0;
  int du0;
  long *any;
  MPI_Win_shared_query(win, MPI_PROC_NULL, &size0, &du0, &any);
  if (any != seg0) expect(0, 1, "MPI_PROC_NULL query gives the first segment");
  /* Store into the right neighbour's last element (once every rank has checked the
   * loads above), read ours after a barrier. */
  MPI_Barrier(MPI_COMM_WORLD);
  const int right = (me + 1) % np, left = (me + np - 1) % np;
  MPI_Aint rs;
  int rdu;
  long *rp;
  MPI_Win_shared_query(win, right, &rs, &rdu, &rp);
  rp[right] = -7L * me;
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  expect(base[me], -7L * left, "store by the left neighbour");
  MPI_Barrier(MPI_COMM_WORLD);
  /* RMA on the shared window, then the result by load. */
  long v = 5L * me;
  MPI_Accumulate(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
  MPI_Win_flush_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  long s = 0;
  for (int r = 0; r < np; ++r) s += 5L * r;
  /* Element 0 of rank 0's segment holds the store of its left neighbour, rank np-1. */
  expect(seg0[0], -7L * (np - 1) + s, "accumulate into a shared window, seen by load");
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  if (me == 0) printf("OK conf_win_shared\n");
  MPI_Finalize();
  return 0;
}
