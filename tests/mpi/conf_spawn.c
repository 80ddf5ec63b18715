/* ranks: 1 2 3 */
/* Dynamic processes: the world spawns NCHILD copies of this program (argv[1] "child"
 * tells the copies apart), with command, argv and maxprocs significant only at the root.
 * Checked: errcodes, MPI_Comm_get_parent on both sides, intercommunicator sizes, p2p both
 * ways (Waitany over the intercommunicator alone and mixed with MPI_COMM_SELF), Bcast
 * and Allreduce over the intercommunicator, Intercomm_merge (parents first) and an
 * Allreduce on the merged communicator, Comm_disconnect (and get_parent after
 * it). On interlace also a command that does not exist (MPI_ERR_SPAWN, not a hang) and
 * maxprocs 0 at the root (MPI_ERR_ARG everywhere): what other MPIs do then is
 * implementation-defined (Open MPI may end the job).
 * tests/python/test_spawn.py runs the fault modes (argv[1]) under interlace only:
 *   fault-unstarted     the children exit without MPI_Init: MPI_ERR_SPAWN, not a hang;
 *   fault-lost          a child dies after connecting: a receive from it fails;
 *   independent FILE    the parent finalizes and exits without disconnecting; the child
 *                       frees its parent (get_parent is then MPI_COMM_NULL), finalizes
 *                       later and then creates FILE. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NCHILD 2

static int wrank;
static const char *side = "parent";

static _Noreturn void fail(const char *what, int a, int b) {
  fprintf(stderr, "FAIL: %s rank %d: %s (%d, %d)\n", side, wrank, what, a, b);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1); /* not reached */
}
#define CHECK(cond, what, a, b) \
  do {                          \
    if (!(cond)) fail(what, a, b); \
  } while (0)

/* Collectives over the intercommunicator and the merged communicator, on both sides.
 * `parents` is the size of the parent group, `high` the side's merge flag. */
static void collectives(MPI_Comm inter, int parents, int is_parent) {
  int lrank, lsize, rsize;
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);

  /* Bcast from parent 0 to the children: the parent count. */
  int value = is_parent ? parents : -1;
  int root = is_parent ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  CHECK(MPI_Bcast(&value, 1, MPI_INT, root, inter) == MPI_SUCCESS, "Bcast", 0, 0);
  CHECK(value == parents, "Bcast value", value, parents);

  /* Allreduce: each side gets the sum over the other side. */
  int mine = is_parent ? lrank + 1 : 10 * (lrank + 1), sum = -1;
  CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS, "Allreduce", 0, 0);
  int expect = is_parent ? 10 * rsize * (rsize + 1) / 2 : rsize * (rsize + 1) / 2;
  CHECK(sum == expect, "Allreduce sum", sum, expect);

  /* Merge: parents (high 0) first. */
  MPI_Comm merged;
  CHECK(MPI_Intercomm_merge(inter, is_parent ? 0 : 1, &merged) == MPI_SUCCESS, "Intercomm_merge", 0, 0);
  int mrank, msize;
  MPI_Comm_rank(merged, &mrank);
  MPI_Comm_size(merged, &msize);
  CHECK(msize == lsize + rsize, "merged size", msize, lsize + rsize);
  int want = is_parent ? lrank : parents + lrank;
  CHECK(mrank == want, "merged rank", mrank, want);
  int one = 1, n = 0;
  MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, merged);
  CHECK(n == msize, "merged Allreduce", n, msize);
  MPI_Comm_free(&merged);
}

static void child(void) {
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  CHECK(parent != MPI_COMM_NULL, "child has a parent", 0, 0);
  int flag = 0, wsize, lrank, lsize, rsize;
  MPI_Comm_test_inter(parent, &flag);
  CHECK(flag, "parent is an intercommunicator", flag, 1);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(wsize == NCHILD, "children's world size", wsize, NCHILD);
  MPI_Comm_rank(parent, &lrank);
  MPI_Comm_size(parent, &lsize);
  MPI_Comm_remote_size(parent, &rsize);
  CHECK(lrank == wrank && lsize == NCHILD, "local group of the parent intercomm", lrank, lsize);

  /* p2p: parent 0 sends 100 + child rank; the child answers 200 + its rank. */
  int v = -1;
  MPI_Status st;
  MPI_Recv(&v, 1, MPI_INT, 0, 7, parent, &st);
  CHECK(v == 100 + lrank && st.MPI_SOURCE == 0, "child received", v, st.MPI_SOURCE);
  v = 200 + lrank;
  MPI_Send(&v, 1, MPI_INT, 0, 8, parent);
  for (int tag = 10; tag <= 11; ++tag) { /* for the parent's Waitany rounds */
    struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL); /* so that the parent waits in MPI_Waitany, as a rule */
    v = 100 * tag + lrank;
    MPI_Send(&v, 1, MPI_INT, 0, tag, parent);
  }

  collectives(parent, rsize, 0);
  CHECK(MPI_Comm_disconnect(&parent) == MPI_SUCCESS, "child disconnect", 0, 0);
  CHECK(parent == MPI_COMM_NULL, "disconnect sets MPI_COMM_NULL", 0, 0);
  MPI_Comm_get_parent(&parent);
  CHECK(parent == MPI_COMM_NULL, "no parent after disconnect", 0, 0);
}

static int is_interlace(void) {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version(v, &len);
  return strncmp(v, "interlace", 9) == 0;
}

static void parent_side(const char *self, int wsize) {
  MPI_Comm parent, inter;
  MPI_Comm_get_parent(&parent);
  CHECK(parent == MPI_COMM_NULL, "a launched job has no parent", 0, 0);

  char *args[] = {"child", NULL};
  int errcodes[NCHILD] = {-1, -1};
  /* Only the root's command, argv and maxprocs count. */
  int rc = wrank == 0 ? MPI_Comm_spawn(self, args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errcodes)
                      : MPI_Comm_spawn(NULL, MPI_ARGV_NULL, -1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errcodes);
  CHECK(rc == MPI_SUCCESS, "MPI_Comm_spawn", rc, 0);
  /* Open MPI fills array_of_errcodes at the root only. */
  if (wrank == 0)
    for (int i = 0; i < NCHILD; ++i) CHECK(errcodes[i] == MPI_SUCCESS, "errcode", i, errcodes[i]);
  int flag = 0, lsize, rsize, lrank;
  MPI_Comm_test_inter(inter, &flag);
  CHECK(flag, "spawn gives an intercommunicator", flag, 1);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Comm_rank(inter, &lrank);
  CHECK(lsize == wsize && lrank == wrank, "local group is the parent comm", lsize, lrank);
  CHECK(rsize == NCHILD, "remote group is the children", rsize, NCHILD);

  if (wrank == 0) {
    for (int j = 0; j < NCHILD; ++j) {
      int v = 100 + j;
      MPI_Send(&v, 1, MPI_INT, j, 7, inter);
    }
    for (int j = 0; j < NCHILD; ++j) {
      int v = -1;
      MPI_Status st;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 8, inter, &st);
      CHECK(v == 200 + st.MPI_SOURCE, "parent received", v, st.MPI_SOURCE);
    }
    /* Waitany over receives from every child (tag 10), then the same together with a
     * message to itself on MPI_COMM_SELF (tag 11), which mixes the two jobs' traffic. */
    for (int tag = 10; tag <= 11; ++tag) {
      MPI_Request reqs[NCHILD + 2];
      int got[NCHILD], self_out = 77, self_in = -1, nreq = NCHILD;
      for (int j = 0; j < NCHILD; ++j) MPI_Irecv(&got[j], 1, MPI_INT, j, tag, inter, &reqs[j]);
      if (tag == 11) {
        MPI_Irecv(&self_in, 1, MPI_INT, 0, tag, MPI_COMM_SELF, &reqs[nreq++]);
        MPI_Isend(&self_out, 1, MPI_INT, 0, tag, MPI_COMM_SELF, &reqs[nreq++]);
      }
      for (int k = 0; k < nreq; ++k) {
        int idx = -1;
        CHECK(MPI_Waitany(nreq, reqs, &idx, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Waitany", tag, k);
        CHECK(idx >= 0 && idx < nreq, "Waitany index", idx, nreq);
      }
      for (int j = 0; j < NCHILD; ++j) CHECK(got[j] == 100 * tag + j, "Waitany received", got[j], 100 * tag + j);
      if (tag == 11) CHECK(self_in == 77, "message to itself", self_in, 77);
    }
  }
  collectives(inter, wsize, 1);
  CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS, "parent disconnect", 0, 0);
  CHECK(inter == MPI_COMM_NULL, "disconnect sets MPI_COMM_NULL", 0, 0);

  if (is_interlace()) {
    /* A command that does not exist: an error at every parent, not a hang. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int codes[NCHILD] = {-1, -1};
    rc = MPI_Comm_spawn("/nonexistent/conf_spawn_child", MPI_ARGV_NULL, NCHILD, MPI_INFO_NULL, 0,
                        MPI_COMM_WORLD, &inter, codes);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN, "spawn of a missing command", cls, MPI_ERR_SPAWN);
    for (int i = 0; i < NCHILD; ++i) CHECK(codes[i] == MPI_ERR_SPAWN, "errcode of a failed spawn", i, codes[i]);
    /* maxprocs 0, significant at the root only: an argument error at every parent. */
    rc = MPI_Comm_spawn(self, MPI_ARGV_NULL, wrank == 0 ? 0 : NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                        MPI_ERRCODES_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "spawn of 0 processes", cls, MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
}

/* The fault modes: each prints "OK <mode>" at rank 0. */
static void fault_mode(const char *self, const char *mode, const char *file) {
  MPI_Comm inter;
  int codes[NCHILD];
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (strcmp(mode, "fault-unstarted") == 0) {
    int rc = MPI_Comm_spawn("true", MPI_ARGV_NULL, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN, "children that never call MPI_Init", cls, MPI_ERR_SPAWN);
  } else if (strcmp(mode, "fault-lost") == 0) {
    char *args[] = {"child-dies", NULL};
    CHECK(MPI_Comm_spawn(self, args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes) == MPI_SUCCESS,
          "spawn", 0, 0);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int v = 0;
    int rc = MPI_Recv(&v, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
    CHECK(rc != MPI_SUCCESS, "a receive from a dead child fails", rc, 0);
  } else if (strcmp(mode, "independent") == 0 && file) {
    char *args[] = {"child-late", (char *)file, NULL};
    CHECK(MPI_Comm_spawn(self, args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes) == MPI_SUCCESS,
          "spawn", 0, 0);
    int v = -1;
    if (wrank == 0)
      for (int j = 0; j < NCHILD; ++j) {
        MPI_Recv(&v, 1, MPI_INT, j, 9, inter, MPI_STATUS_IGNORE);
        CHECK(v == 300 + j, "message from a child", v, 300 + j);
      }
  } else {
    fail("unknown mode", 0, 0);
  }
  if (wrank == 0) printf("OK %s\n", mode);
}

/* The children of the fault modes. */
static void fault_child(const char *mode, const char *file) {
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  CHECK(parent != MPI_COMM_NULL, "child has a parent", 0, 0);
  if (strcmp(mode, "child-dies") == 0) _exit(3);
  int v = 300 + wrank;
  MPI_Send(&v, 1, MPI_INT, 0, 9, parent);
  MPI_Comm_free(&parent); /* a freed parent is no parent any more (MPI 4.1, 11.8.2) */
  MPI_Comm_get_parent(&parent);
  CHECK(parent == MPI_COMM_NULL, "no parent after MPI_Comm_free", 0, 0);
  struct timespec pause = {0, 500 * 1000 * 1000};
  nanosleep(&pause, NULL); /* the parent is gone by now, as a rule */
  MPI_Finalize();
  FILE *f = fopen(file, "w");
  if (f) fclose(f);
  exit(0);
}

int main(int argc, char **argv) {
  int wsize;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    side = "child";
    child();
  } else if (argc > 1 && strncmp(argv[1], "child-", 6) == 0) {
    side = "child";
    fault_child(argv[1], argc > 2 ? argv[2] : "");
  } else if (argc > 1) {
    fault_mode(argv[0], argv[1], argc > 2 ? argv[2] : NULL);
  } else {
    parent_side(argv[0], wsize);
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0) printf("OK conf_spawn\n");
  }
  MPI_Finalize();
  return 0;
}
