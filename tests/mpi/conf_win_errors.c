/* ranks: 1 2 4 */
/* Error classes of one-sided calls under MPI_ERRORS_RETURN: operations outside an
 * epoch (MPI_ERR_RMA_SYNC), a negative displacement (MPI_ERR_DISP), bad lock types
 * and asserts, bad sizes at creation and an
 * invalid window handle; a user error handler on a window. After each error the window
 * still works. */
#include <mpi.h>
#include <stdio.h>

static int me, np;
static int handler_calls;
static MPI_Win handler_win;

static void on_win_error(MPI_Win *win, int *code, ...) {
  (void)code;
  ++handler_calls;
  handler_win = *win;
}

static void expect_class(int rc, int want, const char *what) {
  int cls = -1;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  if (rc == MPI_SUCCESS || cls != want) {
    fprintf(stderr, "FAIL: rank %d: %s: got class %d (rc %d), want %d\n", me, what, cls, rc, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int buf[8] = {0};
  MPI_Win win;
  expect_class(MPI_Win_create(buf, -8, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_SIZE,
               "MPI_Win_create with a negative size");
  expect_class(MPI_Win_create(buf, sizeof buf, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP,
               "MPI_Win_create with disp_unit 0");
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int v = 1;
  const int next = (me + 1) % np;
  expect_class(MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC, "MPI_Put outside an epoch");
  expect_class(MPI_Win_unlock(next, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock of a rank that is not locked");
  expect_class(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "MPI_Win_complete without MPI_Win_start");
  expect_class(MPI_Win_lock(12345, next, 0, win), MPI_ERR_LOCKTYPE, "MPI_Win_lock with lock type 12345");
  expect_class(MPI_Win_fence(1, win), MPI_ERR_ASSERT, "MPI_Win_fence with assert 1");
  MPI_Win_fence(0, win);
  expect_class(MPI_Put(&v, 1, MPI_INT, next, -1, 1, MPI_INT, win), MPI_ERR_DISP, "MPI_Put with target_disp -1");
  expect_class(MPI_Put(&v, 1, MPI_INT, np, 0, 1, MPI_INT, win), MPI_ERR_RANK, "MPI_Put to a rank out of range");
  /* The window still works after the errors. */
  MPI_Put(&me, 1, MPI_INT, next, 1, 1, MPI_INT, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  if (buf[1] != (me + np - 1) % np) {
    fprintf(stderr, "FAIL: rank %d: put after errors: got %d\n", me, buf[1]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* A user error handler is called with the window. */
  MPI_Errhandler eh;
  MPI_Win_create_errhandler(on_win_error, &eh);
  MPI_Win_set_errhandler(win, eh);
  MPI_Errhandler_free(&eh);
  expect_class(MPI_Win_lock(-5, next, 0, win), MPI_ERR_LOCKTYPE, "MPI_Win_lock under a user handler");
  if (handler_calls != 1 || handler_win != win) {
    fprintf(stderr, "FAIL: rank %d: the window's user error handler ran %d times\n", me, handler_calls);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Win_free(&win);
  expect_class(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Win_fence on MPI_WIN_NULL");
  if (me == 0) printf("OK conf_win_errors\n");
  MPI_Finalize();
  return 0;
}
