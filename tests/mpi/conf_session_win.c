/* ranks: 1 2 3 */
/* One-sided windows across session restarts: a window used through passive-target
 * messages in one session, the session (and with it the runtime) ended, then the same
 * again in a new session, twice. What a window attached to the first runtime must not
 * be reused by the next one (it crashed so). Libraries without sessions only print OK. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
  int me = 0;
  for (int round = 0; round < 3; ++round) {
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    MPI_Win w;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s);
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_create_from_group(g, "conf_session_win", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &c);
    int np;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &np);
    long *mem = calloc(1, sizeof(long));
    MPI_Win_create(mem, (MPI_Aint)sizeof(long), sizeof(long), MPI_INFO_NULL, c, &w);
    const int to = (me + 1) % np, from = (me + np - 1) % np;
    long v = 100L * round + me;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, w);
    MPI_Put(&v, 1, MPI_LONG, to, 0, 1, MPI_LONG, w);
    MPI_Win_unlock(to, w);
    MPI_Barrier(c);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w);
    const long got = *mem;
    MPI_Win_unlock(me, w);
    if (got != 100L * round + from) {
      fprintf(stderr, "FAIL: rank %d round %d: got %ld, want %ld\n", me, round, got, 100L * round + from);
      return 1;
    }
    MPI_Win_free(&w);
    free(mem);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    MPI_Session_finalize(&s);
  }
  if (me == 0) printf("OK conf_session_win\n");
#else
  printf("OK conf_session_win\n");
#endif
  return 0;
}
