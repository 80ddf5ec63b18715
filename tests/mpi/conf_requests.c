/* ranks: 1 2 3 4 8 */
/* Requests: Wait/Waitall/Waitany/Waitsome and Test/Testall/Testany/Testsome semantics
 * (completed requests become MPI_REQUEST_NULL, null requests are ignored, MPI_UNDEFINED
 * when nothing is active), persistent requests (inactive after completion, not freed),
 * Request_get_status (does not free), Request_free of a running send, cancelling an
 * unmatched receive, MPI_ERR_IN_STATUS from Waitall, and sets mixing point-to-point
 * with a non-blocking collective. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, nranks, right, left;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "FAIL: rank %d line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
      MPI_Abort(MPI_COMM_WORLD, 1);                               \
    }                                                             \
  } while (0)

#define MAXR 64

/* Every rank sends value src*1000+tag to every rank (itself included) with tag = its
 * rank; receives are posted first into recv[src]. */
static void post_all(MPI_Request* rreqs, MPI_Request* sreqs, int* recv, int* send, int base) {
  for (int src = 0; src < nranks; ++src)
    MPI_Irecv(&recv[src], 1, MPI_INT, src, base + src, MPI_COMM_WORLD, &rreqs[src]);
  for (int dst = 0; dst < nranks; ++dst) {
    send[dst] = rank * 1000 + base + dst;
    MPI_Isend(&send[dst], 1, MPI_INT, dst, base + rank, MPI_COMM_WORLD, &sreqs[dst]);
  }
}

static void check_recv(int src, int value, const MPI_Status* st, int base, const char* what) {
  CHECK(value == src * 1000 + base + rank, "%s: value %d from %d", what, value, src);
  CHECK(st->MPI_SOURCE == src && st->MPI_TAG == base + src,
        "%s: status source %d tag %d (index %d)", what, st->MPI_SOURCE, st->MPI_TAG, src);
}

static void waitany(void) {
  MPI_Request r[MAXR], s[MAXR];
  int recv[MAXR], send[MAXR], seen[MAXR] = {0};
  MPI_Status st;
  int index;
  post_all(r, s, recv, send, 100);
  for (int k = 0; k < nranks; ++k) {
    MPI_Waitany(nranks, r, &index, &st);
    CHECK(index >= 0 && index < nranks && !seen[index], "Waitany returned index %d", index);
    CHECK(r[index] == MPI_REQUEST_NULL, "Waitany did not free request %d", index);
    seen[index] = 1;
    check_recv(index, recv[index], &st, 100, "Waitany");
  }
  MPI_Waitany(nranks, r, &index, &st);
  CHECK(index == MPI_UNDEFINED, "Waitany on null requests returned index %d", index);
  MPI_Waitall(nranks, s, MPI_STATUSES_IGNORE);
}

static void waitsome_testsome(void) {
  MPI_Request r[MAXR], s[MAXR];
  int recv[MAXR], send[MAXR], seen[MAXR] = {0}, idx[MAXR], out, total = 0;
  MPI_Status sts[MAXR];
  post_all(r, s, recv, send, 200);
  while (total < nranks) {
    MPI_Waitsome(nranks, r, &out, idx, sts);
    CHECK(out >= 1 && out <= nranks, "Waitsome outcount %d", out);
    for (int k = 0; k < out; ++k) {
      CHECK(!seen[idx[k]] && r[idx[k]] == MPI_REQUEST_NULL, "Waitsome index %d", idx[k]);
      seen[idx[k]] = 1;
      check_recv(idx[k], recv[idx[k]], &sts[k], 200, "Waitsome");
    }
    total += out;
  }
  MPI_Waitsome(nranks, r, &out, idx, sts);
  CHECK(out == MPI_UNDEFINED, "Waitsome on null requests: outcount %d", out);
  /* Testsome polls the sends to completion. */
  total = 0;
  memset(seen, 0, sizeof seen);
  while (total < nranks) {
    MPI_Testsome(nranks, s, &out, idx, sts);
    CHECK(out >= 0 && out <= nranks, "Testsome outcount %d", out);
    for (int k = 0; k < out; ++k) {
      CHECK(!seen[idx[k]] && s[idx[k]] == MPI_REQUEST_NULL, "Testsome index %d", idx[k]);
      seen[idx[k]] = 1;
    }
    total += out;
  }
  MPI_Testsome(nranks, s, &out, idx, sts);
  CHECK(out == MPI_UNDEFINED, "Testsome on null requests: outcount %d", out);
}

static void tests(void) {
  MPI_Request r[MAXR], s[MAXR];
  int recv[MAXR], send[MAXR], flag = 0, index, done = 0, seen[MAXR] = {0};
  MPI_Status st, sts[MAXR];
  post_all(r, s, recv, send, 300);
  /* Test on one request until it completes. */
  while (!flag) MPI_Test(&r[left], &flag, &st);
  CHECK(r[left] == MPI_REQUEST_NULL, "Test did not free the completed request");
  check_recv(left, recv[left], &st, 300, "Test");
  seen[left] = 1;
  done = 1;
  /* Testany reports the others one at a time. */
  while (done < nranks) {
    MPI_Testany(nranks, r, &index, &flag, &st);
    if (!flag) continue;
    CHECK(index >= 0 && index < nranks && !seen[index], "Testany index %d", index);
    seen[index] = 1;
    check_recv(index, recv[index], &st, 300, "Testany");
    ++done;
  }
  MPI_Testany(nranks, r, &index, &flag, &st);
  CHECK(flag && index == MPI_UNDEFINED, "Testany on null requests: flag %d index %d", flag, index);
  /* Testall: true only when every send is done; then all become null. */
  flag = 0;
  while (!flag) MPI_Testall(nranks, s, &flag, sts);
  for (int i = 0; i < nranks; ++i) CHECK(s[i] == MPI_REQUEST_NULL, "Testall left request %d", i);
  /* Wait/Test on MPI_REQUEST_NULL return at once with an empty status. */
  MPI_Request null = MPI_REQUEST_NULL;
  MPI_Wait(&null, &st);
  MPI_Test(&null, &flag, &st);
  CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
        "Test(MPI_REQUEST_NULL): flag %d source %d tag %d", flag, st.MPI_SOURCE, st.MPI_TAG);
  MPI_Testall(0, NULL, &flag, MPI_STATUSES_IGNORE);
  CHECK(flag, "Testall of no requests is not complete");
  MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE);
}

static void persistent(void) {
  int in = -1, out, flag;
  MPI_Request pr[2];
  MPI_Status st;
  MPI_Recv_init(&in, 1, MPI_INT, left, 400, MPI_COMM_WORLD, &pr[0]);
  MPI_Send_init(&out, 1, MPI_INT, right, 400, MPI_COMM_WORLD, &pr[1]);
  /* Inactive persistent requests: Test is complete at once and keeps the handle. */
  MPI_Test(&pr[0], &flag, &st);
  CHECK(flag && pr[0] != MPI_REQUEST_NULL, "Test on an inactive persistent request: flag %d", flag);
  for (int iter = 0; iter < 3; ++iter) {
    int index;
    out = rank * 10 + iter;
    MPI_Startall(2, pr);
    for (int k = 0; k < 2; ++k) {
      MPI_Waitany(2, pr, &index, &st);
      CHECK(index == 0 || index == 1, "Waitany over persistent requests: index %d", index);
      CHECK(pr[index] != MPI_REQUEST_NULL, "a persistent request became MPI_REQUEST_NULL");
      if (index == 0) CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 400, "persistent status");
    }
    CHECK(in == left * 10 + iter, "persistent receive %d got %d", iter, in);
    /* Both inactive now: Waitany reports MPI_UNDEFINED. */
    MPI_Waitany(2, pr, &index, &st);
    CHECK(index == MPI_UNDEFINED, "Waitany over inactive requests: index %d", index);
  }
  MPI_Request_free(&pr[0]);
  MPI_Request_free(&pr[1]);
}

static void get_status_and_free(void) {
  int in = -1, out = rank + 7, flag = 0;
  MPI_Request r, s;
  MPI_Status st;
  MPI_Irecv(&in, 1, MPI_INT, left, 500, MPI_COMM_WORLD, &r);
  MPI_Isend(&out, 1, MPI_INT, right, 500, MPI_COMM_WORLD, &s);
  while (!flag) MPI_Request_get_status(r, &flag, &st);
  CHECK(r != MPI_REQUEST_NULL, "Request_get_status freed the request");
  CHECK(in == left + 7 && st.MPI_SOURCE == left && st.MPI_TAG == 500,
        "Request_get_status: value %d source %d", in, st.MPI_SOURCE);
  MPI_Wait(&r, &st);
  CHECK(r == MPI_REQUEST_NULL && st.MPI_SOURCE == left, "Wait after Request_get_status");
  /* Freeing a running send: the message still arrives. */
  MPI_Request_free(&s);
  CHECK(s == MPI_REQUEST_NULL, "Request_free kept the handle");
  MPI_Isend(&out, 1, MPI_INT, right, 501, MPI_COMM_WORLD, &s);
  MPI_Request_free(&s);
  MPI_Recv(&in, 1, MPI_INT, left, 501, MPI_COMM_WORLD, &st);
  CHECK(in == left + 7, "message of a freed send request: %d", in);
}

static void cancel(void) {
  int in = -1, flag = -1;
  MPI_Request r;
  MPI_Status st;
  MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 600, MPI_COMM_WORLD, &r); /* never sent */
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 1 && r == MPI_REQUEST_NULL, "cancelled receive: Test_cancelled %d", flag);
  CHECK(in == -1, "cancelled receive wrote the buffer");
  /* A completed receive was not cancelled. */
  int out = 3;
  MPI_Sendrecv(&out, 1, MPI_INT, right, 601, &in, 1, MPI_INT, left, 601, MPI_COMM_WORLD, &st);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 0, "a received message reports cancelled");
}

static void in_status(void) {
  int out[4] = {1, 2, 3, 4}, small[2], ok = -1, cls;
  MPI_Request r[3];
  MPI_Status sts[3];
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Isend(out, 4, MPI_INT, right, 700, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(small, 2, MPI_INT, left, 700, MPI_COMM_WORLD, &r[1]); /* truncated */
  MPI_Irecv(&ok, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[2]);
  int rc = MPI_Waitall(3, r, sts);
  CHECK(rc == MPI_ERR_IN_STATUS, "Waitall with a truncated receive returned %d", rc);
  MPI_Error_class(sts[1].MPI_ERROR, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE, "status of the truncated receive: class %d", cls);
  CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[2].MPI_ERROR == MPI_SUCCESS,
        "statuses of the good requests: %d %d", sts[0].MPI_ERROR, sts[2].MPI_ERROR);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A point-to-point ring and a non-blocking barrier in one request set. */
static void mixed(void) {
  int out = rank, in = -1, index, seen_barrier = 0, seen_recv = 0;
  MPI_Request r[3];
  MPI_Status st;
  MPI_Irecv(&in, 1, MPI_INT, left, 800, MPI_COMM_WORLD, &r[0]);
  MPI_Ibarrier(MPI_COMM_WORLD, &r[1]);
  MPI_Isend(&out, 1, MPI_INT, right, 800, MPI_COMM_WORLD, &r[2]);
  for (int k = 0; k < 3; ++k) {
    MPI_Waitany(3, r, &index, &st);
    CHECK(index >= 0 && index < 3 && r[index] == MPI_REQUEST_NULL, "mixed Waitany index %d", index);
    seen_barrier += index == 1;
    seen_recv += index == 0;
  }
  CHECK(seen_barrier == 1 && seen_recv == 1 && in == left, "mixed set: barrier %d recv %d value %d",
        seen_barrier, seen_recv, in);
  MPI_Irecv(&in, 1, MPI_INT, left, 801, MPI_COMM_WORLD, &r[0]);
  MPI_Ibarrier(MPI_COMM_WORLD, &r[1]);
  MPI_Isend(&out, 1, MPI_INT, right, 801, MPI_COMM_WORLD, &r[2]);
  MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 3; ++i) CHECK(r[i] == MPI_REQUEST_NULL, "mixed Waitall left request %d", i);
  int flag = 0, outcount, idx[3];
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  while (!flag) MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&in, 1, MPI_INT, left, 802, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(&out, 1, MPI_INT, right, 802, MPI_COMM_WORLD, &r[2]);
  int total = 0;
  while (total < 3) {
    MPI_Waitsome(3, r, &outcount, idx, MPI_STATUSES_IGNORE);
    total += outcount;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  right = (rank + 1) % nranks;
  left = (rank + nranks - 1) % nranks;
  CHECK(nranks <= MAXR, "at most %d ranks", MAXR);
  waitany();
  waitsome_testsome();
  tests();
  persistent();
  get_status_and_free();
  cancel();
  in_status();
  mixed();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_requests\n");
  MPI_Finalize();
  return 0;
}
