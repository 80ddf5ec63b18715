/* ranks: 1 2 4 */
/* MPI 4 sessions: a sessions-only flow before MPI_Init (Session_init with a thread
 * level, the process sets and their infos, groups from "mpi://WORLD" / "mpi://SELF",
 * communicators from them with Comm_create_from_group used for p2p and collectives,
 * session error handlers, the MPI 4.1 session buffer with Bsend, Session_finalize),
 * then a mixed flow: a session beside MPI_Init, bad and finalized session handles
 * (MPI_ERR_SESSION), a session that outlives MPI_Finalize, and one started after it.
 * Libraries without sessions (Open MPI 4.1 declares MPI 3.1) only print OK. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1;

static _Noreturn void fail(const char *what, int a, int b) {
  fprintf(stderr, "FAIL: rank %d: %s (%d, %d)\n", rank, what, a, b);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1); /* not reached */
}
static _Noreturn void failed_call(const char *call, int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  text[0] = '\0';
  MPI_Error_string(rc, text, &len);
  fprintf(stderr, "FAIL: rank %d: %s returned %d: %s\n", rank, call, rc, text);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1); /* not reached */
}
#define CHECK(cond, what, a, b) \
  do {                          \
    if (!(cond)) fail(what, a, b); \
  } while (0)
#define OKAY(call) \
  do {             \
    int rc_ = (call); \
    if (rc_ != MPI_SUCCESS) failed_call(#call, rc_); \
  } while (0)

#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)

static int class_of(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

static int handler_calls;
static MPI_Session handler_session;
static int handler_code;
static void on_session_error(MPI_Session *s, int *code, ...) {
  ++handler_calls;
  handler_session = *s;
  handler_code = *code;
}

/* An intracommunicator over the pset: its size, this rank, a sum over it, a ring. */
static MPI_Comm comm_of_pset(MPI_Session s, const char *pset, const char *tag, int expect_size) {
  MPI_Group g;
  MPI_Comm c;
  int n, me, sum = 0;
  OKAY(MPI_Group_from_session_pset(s, pset, &g));
  OKAY(MPI_Group_size(g, &n));
  CHECK(n == expect_size, "pset group size", n, expect_size);
  OKAY(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  OKAY(MPI_Group_free(&g));
  OKAY(MPI_Comm_size(c, &n));
  CHECK(n == expect_size, "communicator size", n, expect_size);
  OKAY(MPI_Comm_rank(c, &me));
  OKAY(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == n * (n - 1) / 2, "allreduce over the session communicator", sum, n);
  int got = -1, right = (me + 1) % n, left = (me + n - 1) % n;
  OKAY(MPI_Sendrecv(&me, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, c, MPI_STATUS_IGNORE));
  CHECK(got == left, "ring over the session communicator", got, left);
  return c;
}

static int world_size_of(MPI_Session s) {
  MPI_Info info;
  char value[32];
  int flag = 0, len = sizeof value;
  OKAY(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
  OKAY(MPI_Info_get_string(info, "mpi_size", &len, value, &flag));
  CHECK(flag, "pset info has mpi_size", flag, 0);
  OKAY(MPI_Info_free(&info));
  return atoi(value);
}

static void psets(MPI_Session s) {
  int n = 0, seen_world = 0, seen_self = 0;
  OKAY(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
  CHECK(n >= 2, "at least mpi://WORLD and mpi://SELF", n, 2);
  for (int i = 0; i < n; ++i) {
    int len = 0;
    char name[MPI_MAX_PSET_NAME_LEN];
    OKAY(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL)); /* 0: ask the length */
    CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset name length", len, i);
    OKAY(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
    CHECK((int)strlen(name) == len - 1, "pset name fills its length", (int)strlen(name), len);
    seen_world += strcmp(name, "mpi://WORLD") == 0;
    seen_self += strcmp(name, "mpi://SELF") == 0;
    char shortname[5] = "xxxx";
    len = 4; /* truncated to 3 characters and a null */
    OKAY(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, shortname));
    CHECK(strncmp(shortname, name, 3) == 0 && shortname[3] == '\0', "truncated pset name", i, 0);
  }
  CHECK(seen_world == 1 && seen_self == 1, "psets mpi://WORLD and mpi://SELF", seen_world, seen_self);
}

/* The program flow of a library that never calls MPI_Init. */
static void sessions_only(int *world_size) {
  MPI_Info info;
  MPI_Session s = MPI_SESSION_NULL;
  int flag = 1;
  OKAY(MPI_Info_create(&info));
  OKAY(MPI_Info_set(info, "thread_level", "MPI_THREAD_SINGLE"));
  OKAY(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
  OKAY(MPI_Info_free(&info));
  CHECK(s != MPI_SESSION_NULL, "Session_init gives a handle", MPI_Session_c2f(s), 0);
  CHECK(MPI_Session_f2c(MPI_Session_c2f(s)) == s, "session handle conversion", MPI_Session_c2f(s), 0);
  MPI_Initialized(&flag);
  CHECK(!flag, "a session does not initialize the world model", flag, 0);

  char value[64];
  int len = sizeof value;
  OKAY(MPI_Session_get_info(s, &info));
  OKAY(MPI_Info_get_string(info, "mpi_thread_support_level", &len, value, &flag));
  CHECK(flag && strcmp(value, "MPI_THREAD_SINGLE") == 0, "mpi_thread_support_level", flag, len);
  OKAY(MPI_Info_free(&info));

  psets(s);
  *world_size = world_size_of(s);
  MPI_Comm world = comm_of_pset(s, "mpi://WORLD", "conf_session.world", *world_size);
  OKAY(MPI_Comm_rank(world, &rank));
  MPI_Comm self = comm_of_pset(s, "mpi://SELF", "conf_session.self", 1);

  /* unknown pset: MPI_ERR_ARG through the session's MPI_ERRORS_RETURN */
  MPI_Group g = MPI_GROUP_NULL;
  int rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
  CHECK(class_of(rc) == MPI_ERR_ARG, "unknown pset is MPI_ERR_ARG", class_of(rc), rc);
  rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &len, value);
  CHECK(class_of(rc) == MPI_ERR_ARG, "pset index out of range is MPI_ERR_ARG", class_of(rc), rc);

  /* a user handler on the session */
  MPI_Errhandler eh, got;
  OKAY(MPI_Session_create_errhandler(on_session_error, &eh));
  OKAY(MPI_Session_set_errhandler(s, eh));
  OKAY(MPI_Session_get_errhandler(s, &got));
  CHECK(got == eh, "Session_get_errhandler", got, eh);
  OKAY(MPI_Errhandler_free(&got));
  rc = MPI_Group_from_session_pset(s, "no such pset", &g);
  CHECK(handler_calls == 1 && handler_session == s && class_of(handler_code) == MPI_ERR_ARG,
        "user session handler sees the error", handler_calls, class_of(handler_code));
  CHECK(class_of(rc) == MPI_ERR_ARG, "call returns the handled code", class_of(rc), rc);
  OKAY(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
  CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "Session_call_errhandler", handler_calls,
        handler_code);
  OKAY(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
  OKAY(MPI_Errhandler_free(&eh));

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1) || defined(INTERLACE_MPI)
  /* buffered sends through the session's buffer (MPI 4.1) */
  int bufsize = 4 * (64 + MPI_BSEND_OVERHEAD);
  char *buf = malloc(bufsize);
  void *back = NULL;
  int backsize = 0, msg = 40 + rank, in = -1;
  OKAY(MPI_Session_attach_buffer(s, buf, bufsize));
  OKAY(MPI_Bsend(&msg, 1, MPI_INT, 0, 3, self));
  OKAY(MPI_Session_flush_buffer(s));
  OKAY(MPI_Recv(&in, 1, MPI_INT, 0, 3, self, MPI_STATUS_IGNORE));
  CHECK(in == msg, "Bsend through the session buffer", in, msg);
  MPI_Request req;
  OKAY(MPI_Bsend(&msg, 1, MPI_INT, 0, 4, self));
  OKAY(MPI_Session_iflush_buffer(s, &req));
  OKAY(MPI_Wait(&req, MPI_STATUS_IGNORE));
  OKAY(MPI_Recv(&in, 1, MPI_INT, 0, 4, self, MPI_STATUS_IGNORE));
  OKAY(MPI_Session_detach_buffer(s, &back, &backsize));
  CHECK(back == buf && backsize == bufsize, "Session_detach_buffer returns the buffer", backsize, bufsize);
  free(buf);
#endif

  OKAY(MPI_Barrier(world));
  OKAY(MPI_Comm_free(&self));
  OKAY(MPI_Comm_free(&world));
  OKAY(MPI_Session_finalize(&s));
  CHECK(s == MPI_SESSION_NULL, "Session_finalize sets MPI_SESSION_NULL", MPI_Session_c2f(s), 0);
  MPI_Initialized(&flag);
  CHECK(!flag, "still not initialized after the sessions-only flow", flag, 0);
}

/* Sessions beside the world model, and across MPI_Finalize. */
static void mixed(int world_size) {
  MPI_Session a, b, c, dead;
  int n, cmp;
  OKAY(MPI_Init(NULL, NULL));
  OKAY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  OKAY(MPI_Comm_size(MPI_COMM_WORLD, &n));
  CHECK(n == world_size, "world size as the session said", n, world_size);
  OKAY(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &a));
  OKAY(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &dead));
  CHECK(a != dead, "two sessions, two handles", MPI_Session_c2f(a), MPI_Session_c2f(dead));
  MPI_Session kept = dead;
  OKAY(MPI_Session_finalize(&dead));

  /* bad handles: errors on no session go to the initial (world's) handler */
  int rc;
#ifdef INTERLACE_MPI /* MPI leaves a finalized or made-up handle erroneous; interlace detects it */
  rc = MPI_Session_get_num_psets(kept, MPI_INFO_NULL, &n);
  CHECK(class_of(rc) == MPI_ERR_SESSION, "finalized session is MPI_ERR_SESSION", class_of(rc), rc);
  rc = MPI_Session_get_num_psets(MPI_Session_f2c(MPI_Session_c2f(a) + 1000), MPI_INFO_NULL, &n);
  CHECK(class_of(rc) == MPI_ERR_SESSION, "unknown session is MPI_ERR_SESSION", class_of(rc), rc);
  rc = MPI_Session_finalize(&kept);
  CHECK(class_of(rc) == MPI_ERR_SESSION, "finalizing twice is MPI_ERR_SESSION", class_of(rc), rc);
#else
  (void)kept;
#endif
  MPI_Session null_session = MPI_SESSION_NULL;
  rc = MPI_Session_finalize(&null_session);
  CHECK(class_of(rc) == MPI_ERR_SESSION, "MPI_SESSION_NULL is MPI_ERR_SESSION", class_of(rc), rc);
#ifdef INTERLACE_MPI /* erroneous by MPI; interlace refuses it */
  MPI_Errhandler comm_eh;
  OKAY(MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)on_session_error, &comm_eh));
  rc = MPI_Session_set_errhandler(a, comm_eh);
  CHECK(class_of(rc) == MPI_ERR_ARG, "a communicator handler on a session", class_of(rc), rc);
  OKAY(MPI_Errhandler_free(&comm_eh));
#endif

  /* the session's WORLD pset is MPI_COMM_WORLD's group */
  MPI_Group wg, sg;
  MPI_Comm sc;
  OKAY(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  OKAY(MPI_Group_from_session_pset(a, "mpi://WORLD", &sg));
  OKAY(MPI_Group_compare(wg, sg, &cmp));
  CHECK(cmp == MPI_IDENT, "pset mpi://WORLD is the world's group", cmp, MPI_IDENT);
  OKAY(MPI_Comm_create_from_group(sg, "conf_session.mixed", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
  OKAY(MPI_Comm_compare(sc, MPI_COMM_WORLD, &cmp));
  CHECK(cmp == MPI_CONGRUENT, "session communicator is congruent to the world", cmp, MPI_CONGRUENT);
  OKAY(MPI_Group_free(&wg));
  OKAY(MPI_Group_free(&sg));
  OKAY(MPI_Comm_free(&sc));

  OKAY(MPI_Finalize());
  /* MPI 4: sessions work after MPI_Finalize, the one that outlived it and new ones */
  MPI_Comm after = comm_of_pset(a, "mpi://WORLD", "conf_session.after", world_size);
  OKAY(MPI_Comm_free(&after));
  OKAY(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &b));
  OKAY(MPI_Session_finalize(&a));
  after = comm_of_pset(b, "mpi://WORLD", "conf_session.later", world_size);
  OKAY(MPI_Comm_free(&after));
  OKAY(MPI_Session_finalize(&b));
  /* and a new one once every session and the world model ended */
  OKAY(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  after = comm_of_pset(c, "mpi://WORLD", "conf_session.restart", world_size);
  OKAY(MPI_Barrier(after));
  OKAY(MPI_Comm_free(&after));
  OKAY(MPI_Session_finalize(&c));
  int flag = 0;
  MPI_Finalized(&flag);
  CHECK(flag, "MPI_Finalized stays about the world model", flag, 0);
}

int main(void) {
  int world_size = 0;
  sessions_only(&world_size);
  mixed(world_size);
  if (rank == 0) printf("OK conf_session\n");
  return 0;
}

#else

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("OK conf_session\n");
  MPI_Finalize();
  return 0;
}

#endif
