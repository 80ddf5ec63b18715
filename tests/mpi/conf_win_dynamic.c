/* ranks: 1 2 3 4 8 */
/* Dynamic windows: MPI_Win_create_dynamic, memory attached after creation (two
 * regions), addresses exchanged with MPI_Get_address and used as target_disp,
 * put/get/accumulate into attached memory, detach and attach of new memory. */
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
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int *flavor, flag;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  expect(*flavor, MPI_WIN_FLAVOR_DYNAMIC, "MPI_WIN_CREATE_FLAVOR");
  int *a = calloc(np, sizeof(int));
  double *b = calloc(4, sizeof(double));
  MPI_Win_attach(win, a, np * sizeof(int));
  MPI_Win_attach(win, b, 4 * sizeof(double));
  MPI_Aint mine[2], *all = malloc(2 * np * sizeof(MPI_Aint));
  MPI_Get_address(a, &mine[0]);
  MPI_Get_address(b, &mine[1]);
  MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);

  const int right = (me + 1) % np, left = (me + np - 1) % np;
  MPI_Win_lock_all(0, win);
  int v = 10 * me + 1;
  MPI_Put(&v, 1, MPI_INT, right, MPI_Aint_add(all[2 * right], me * sizeof(int)), 1, MPI_INT, win);
  double d = 0.25;
  MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, MPI_Aint_add(all[1], 2 * sizeof(double)), 1, MPI_DOUBLE, MPI_SUM, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
  expect(a[left], 10 * left + 1, "put into attached memory");
  if (me == 0) expect((long)(b[2] * 4), np, "accumulate into the second attached region");
  MPI_Win_unlock(me, win);

  /* Read back through the window from the left neighbour's first region. */
  int got = -1;
  MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
  MPI_Get(&got, 1, MPI_INT, left, MPI_Aint_add(all[2 * left], ((left + np - 1) % np) * sizeof(int)), 1, MPI_INT,
          win);
  MPI_Win_unlock(left, win);
  expect(got, 10 * ((left + np - 1) % np) + 1, "get from attached memory");

  /* Detach the first region and attach a new one; addresses exchanged again. */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_detach(win, a);
  long *c = calloc(2, sizeof(long));
  MPI_Win_attach(win, c, 2 * sizeof(long));
  MPI_Get_address(c, &mine[0]);
  MPI_Allgather(mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
  MPI_Win_fence(0, win);
  long lv = 3L * me + 2;
  MPI_Put(&lv, 1, MPI_LONG, right, MPI_Aint_add(all[right], sizeof(long)), 1, MPI_LONG, win);
  MPI_Win_fence(0, win);
  expect(c[1], 3L * left + 2, "put into newly attached memory under fence");
  MPI_Win_detach(win, c);
  MPI_Win_detach(win, b);
  MPI_Win_free(&win);
  free(a);
  free(b);
  free(c);
  free(all);
  if (me == 0) printf("OK conf_win_dynamic\n");
  MPI_Finalize();
  return 0;
}
