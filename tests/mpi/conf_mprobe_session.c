/* ranks: 1 */
/* Matched probes in a sessions-only program (no MPI_Init): an error of MPI_Mrecv goes to
 * the handler of the message's communicator (here MPI_ERRORS_RETURN), as for any other
 * call on it, and the message stays receivable. Libraries without sessions (Open MPI
 * 4.1 declares MPI 3.1) only print OK. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void check(int cond, const char* what, int v) {
  if (cond) return;
  fprintf(stderr, "FAIL: %s (%d)\n", what, v);
  exit(1);
}

int main(void) {
#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
  MPI_Session s;
  MPI_Group g;
  MPI_Comm c;
  check(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "Session_init", 0);
  check(MPI_Group_from_session_pset(s, "mpi://SELF", &g) == MPI_SUCCESS, "Group_from_session_pset", 0);
  check(MPI_Comm_create_from_group(g, "conf_mprobe_session", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                   &c) == MPI_SUCCESS, "Comm_create_from_group", 0);
  int out = 5, in = -1, cls = -1;
  MPI_Message m;
  MPI_Status st;
  MPI_Request r;
  MPI_Isend(&out, 1, MPI_INT, 0, 3, c, &r);
  check(MPI_Mprobe(0, 3, c, &m, &st) == MPI_SUCCESS, "Mprobe", 0);
  int rc = MPI_Mrecv(&in, -1, MPI_INT, &m, &st); /* a negative count: returned, not fatal */
  MPI_Error_class(rc, &cls);
  check(cls == MPI_ERR_COUNT, "Mrecv with count -1 gives MPI_ERR_COUNT", cls);
  check(MPI_Mrecv(&in, 1, MPI_INT, &m, &st) == MPI_SUCCESS && in == 5, "Mrecv after the error", in);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Comm_free(&c);
  MPI_Group_free(&g);
  MPI_Session_finalize(&s);
#endif
  printf("OK conf_mprobe_session\n");
  return 0;
}
