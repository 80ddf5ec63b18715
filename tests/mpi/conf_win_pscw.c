/* ranks: 1 2 3 4 8 */
/* Generalized active target (post/start/complete/wait/test): a ring where each rank
 * exposes its window to its left neighbour and accesses its right one, an
 * all-to-one epoch where rank 0 exposes to everybody (finished with MPI_Win_test),
 * and MPI_MODE_NOCHECK on matching post and start calls. */
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

static MPI_Group group_of(MPI_Group world, int n, const int *ranks) {
  MPI_Group g;
  MPI_Group_incl(world, n, ranks, &g);
  return g;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int n = np + 2;
  int *buf = calloc(n, sizeof(int));
  MPI_Win win;
  MPI_Win_create(buf, (MPI_Aint)(n * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Group world, wg;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Win_get_group(win, &wg);
  int cmp;
  MPI_Group_compare(world, wg, &cmp);
  expect(cmp, MPI_IDENT, "MPI_Win_get_group is the communicator's group");
  MPI_Group_free(&wg);

  const int right = (me + 1) % np, left = (me + np - 1) % np;
  for (int round = 0; round < 3; ++round) {
    MPI_Group from = group_of(world, 1, &left), to = group_of(world, 1, &right);
    MPI_Win_post(from, 0, win);
    MPI_Win_start(to, 0, win);
    int v = 100 * round + me;
    MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    int one = 1;
    MPI_Accumulate(&one, 1, MPI_INT, right, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    expect(buf[0], 100 * round + left, "ring put in a post/start epoch");
    expect(buf[1], round + 1, "ring accumulate in a post/start epoch");
    MPI_Group_free(&from);
    MPI_Group_free(&to);
  }

  /* All to one: rank 0 exposes to every rank; each writes its own slot. */
  int zero = 0;
  MPI_Group only0 = group_of(world, 1, &zero);
  if (me == 0) MPI_Win_post(world, MPI_MODE_NOSTORE, win);
  MPI_Win_start(only0, 0, win);
  int v = 7 * me + 1;
  MPI_Put(&v, 1, MPI_INT, 0, 2 + me, 1, MPI_INT, win);
  MPI_Win_complete(win);
  if (me == 0) {
    int flag = 0;
    while (!flag) MPI_Win_test(win, &flag);
    for (int r = 0; r < np; ++r) expect(buf[2 + r], 7 * r + 1, "all-to-one put, finished by MPI_Win_test");
  }

  /* NOCHECK: the posts are known to be done (a barrier orders them). */
  MPI_Group from = group_of(world, 1, &left), to = group_of(world, 1, &right);
  MPI_Win_post(from, MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_start(to, MPI_MODE_NOCHECK, win);
  int got = -1;
  MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  expect(got, 200 + me, "get under MPI_MODE_NOCHECK");
  MPI_Group_free(&from);
  MPI_Group_free(&to);
  MPI_Group_free(&only0);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  free(buf);
  if (me == 0) printf("OK conf_win_pscw\n");
  MPI_Finalize();
  return 0;
}
