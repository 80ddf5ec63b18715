/* ranks: 2 */
/* A lock on a direct window (MPI_Win_allocate on one host: the lock is a word in the
 * shared segment) that its holder keeps past INTERLACE_TIMEOUT: the other rank's
 * MPI_Win_lock returns an error instead of waiting forever (a holder that died would
 * never release it). interlace only: other MPIs have no such bound; they print OK. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
#ifdef INTERLACE_MPI
  setenv("INTERLACE_TIMEOUT", "1", 1); /* read when the runtime starts */
#endif
  MPI_Init(&argc, &argv);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
#ifdef INTERLACE_MPI
  long *mem;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  if (me == 0) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 1) {
    int rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win), cls, len;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    if (rc == MPI_SUCCESS || cls != MPI_ERR_OTHER || !strstr(msg, "INTERLACE_TIMEOUT")) {
      fprintf(stderr, "FAIL: a lock held past INTERLACE_TIMEOUT: rc %d class %d: %s\n", rc, cls, msg);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  /* Rank 0 holds the lock until rank 1 gave up; it waits by testing, as a blocking
   * wait longer than INTERLACE_TIMEOUT would itself time out. */
  MPI_Request done;
  int flag = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &done);
  while (!flag) MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
  if (me == 0) MPI_Win_unlock(0, win);
  MPI_Win_free(&win);
#endif
  if (me == 0) printf("OK conf_win_lock_timeout\n");
  MPI_Finalize();
  return 0;
}
