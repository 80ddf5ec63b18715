/* ranks: 1 2 */
/* Generalized requests and the status setters: query_fn fills the status at completion
 * (MPI_Status_set_elements/_x, set_cancelled, and the MPI 4.1 set_source/tag/error and
 * get_* where the library has them), free_fn runs exactly once when the request goes
 * (at Wait/Test, or at MPI_Grequest_complete after an early MPI_Request_free),
 * cancel_fn learns whether the request was complete, Test/Request_get_status see it
 * incomplete until MPI_Grequest_complete, and Waitall mixes it with point-to-point. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, nranks;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "FAIL: rank %d line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
      MPI_Abort(MPI_COMM_WORLD, 1);                               \
    }                                                             \
  } while (0)

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1) || defined(INTERLACE_MPI)
#define HAVE_STATUS_41 1
#endif

struct state {
  int queries, frees, cancels, cancel_complete, cancelled;
};

static int query_fn(void* extra, MPI_Status* st) {
  struct state* s = extra;
  s->queries++;
  MPI_Status_set_elements(st, MPI_INT, 5);
  MPI_Status_set_cancelled(st, s->cancelled);
  st->MPI_SOURCE = 3;
  st->MPI_TAG = 44;
  return MPI_SUCCESS;
}

static int free_fn(void* extra) {
  ((struct state*)extra)->frees++;
  return MPI_SUCCESS;
}

static int cancel_fn(void* extra, int complete) {
  struct state* s = extra;
  s->cancels++;
  s->cancel_complete = complete;
  if (!complete) s->cancelled = 1;
  return MPI_SUCCESS;
}

static void basic(void) {
  struct state s = {0, 0, 0, 0, 0};
  MPI_Request r;
  MPI_Status st;
  int flag = 1, count = -1;
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r);
  MPI_Test(&r, &flag, &st);
  CHECK(!flag && r != MPI_REQUEST_NULL, "Test of an incomplete generalized request: flag %d", flag);
  MPI_Request_get_status(r, &flag, &st);
  CHECK(!flag, "Request_get_status of an incomplete generalized request");
  MPI_Grequest_complete(r);
  MPI_Request_get_status(r, &flag, &st);
  CHECK(flag && r != MPI_REQUEST_NULL && s.frees == 0, "Request_get_status after complete");
  MPI_Wait(&r, &st);
  CHECK(r == MPI_REQUEST_NULL && s.frees == 1 && s.queries >= 1, "Wait: frees %d queries %d",
        s.frees, s.queries);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 5 && st.MPI_SOURCE == 3 && st.MPI_TAG == 44, "status: count %d source %d tag %d",
        count, st.MPI_SOURCE, st.MPI_TAG);
  MPI_Get_elements(&st, MPI_INT, &count);
  CHECK(count == 5, "Get_elements %d", count);
  MPI_Test_cancelled(&st, &flag);
  CHECK(!flag, "not cancelled");
}

static void cancel_and_free(void) {
  struct state s = {0, 0, 0, 0, 0};
  MPI_Request r;
  MPI_Status st;
  int flag = 0;
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r);
  MPI_Cancel(&r);
  CHECK(s.cancels == 1 && s.cancel_complete == 0, "cancel_fn: %d calls, complete %d", s.cancels,
        s.cancel_complete);
  MPI_Grequest_complete(r);
  while (!flag) MPI_Test(&r, &flag, &st);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag && s.frees == 1, "cancelled generalized request: cancelled %d frees %d", flag, s.frees);
  /* Freed before completion: free_fn runs once MPI_Grequest_complete is called. */
  struct state t = {0, 0, 0, 0, 0};
  MPI_Request keep;
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &t, &r);
  keep = r;
  MPI_Request_free(&r);
  CHECK(r == MPI_REQUEST_NULL && t.frees == 0, "Request_free of an incomplete generalized request");
  MPI_Grequest_complete(keep);
  CHECK(t.frees == 1, "free_fn after a freed request completed: %d", t.frees);
}

static void mixed_waitall(void) {
  struct state s = {0, 0, 0, 0, 0};
  MPI_Request r[3];
  MPI_Status st[3];
  int out = rank + 10, in = -1;
  const int peer = (rank + 1) % nranks, from = (rank + nranks - 1) % nranks;
  MPI_Irecv(&in, 1, MPI_INT, from, 9, MPI_COMM_WORLD, &r[0]);
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r[1]);
  MPI_Isend(&out, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &r[2]);
  MPI_Grequest_complete(r[1]);
  MPI_Waitall(3, r, st);
  CHECK(in == from + 10 && st[1].MPI_TAG == 44 && s.frees == 1, "Waitall: in %d tag %d frees %d",
        in, st[1].MPI_TAG, s.frees);
  /* Waitany over an incomplete generalized request and a completing receive. */
  struct state u = {0, 0, 0, 0, 0};
  int index = -1;
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &u, &r[0]);
  MPI_Irecv(&in, 1, MPI_INT, from, 10, MPI_COMM_WORLD, &r[1]);
  MPI_Send(&out, 1, MPI_INT, peer, 10, MPI_COMM_WORLD);
  MPI_Waitany(2, r, &index, &st[0]);
  CHECK(index == 1, "Waitany chose %d", index);
  MPI_Grequest_complete(r[0]);
  MPI_Waitany(2, r, &index, &st[0]);
  CHECK(index == 0 && u.frees == 1, "Waitany second: %d", index);
}

static void setters(void) {
  MPI_Status st;
  int count = -1, flag = -1;
  memset(&st, 0, sizeof st);
  MPI_Status_set_elements(&st, MPI_DOUBLE, 4);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  CHECK(count == 4, "set_elements(MPI_DOUBLE, 4): count %d", count);
  MPI_Get_count(&st, MPI_CHAR, &count);
  CHECK(count == 4 * (int)sizeof(double), "as MPI_CHAR: %d", count);
  MPI_Status_set_elements_x(&st, MPI_INT, (MPI_Count)3);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 3, "set_elements_x: %d", count);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Status_set_elements(&st, pair, 6);
  MPI_Get_count(&st, pair, &count);
  CHECK(count == 3, "6 ints are 3 pairs: %d", count);
  MPI_Status_set_elements(&st, pair, 5);
  MPI_Get_count(&st, pair, &count);
  CHECK(count == MPI_UNDEFINED, "5 ints are not whole pairs: %d", count);
  MPI_Get_elements(&st, pair, &count);
  CHECK(count == 5, "Get_elements after set_elements 5: %d", count);
  MPI_Type_free(&pair);
  /* A type mixing basic types: { int, double } is two basic elements of 12 bytes. */
  MPI_Datatype mixed, types[2] = {MPI_INT, MPI_DOUBLE};
  int lens[2] = {1, 1};
  MPI_Aint disps[2] = {0, 8};
  MPI_Type_create_struct(2, lens, disps, types, &mixed);
  MPI_Type_commit(&mixed);
  MPI_Status_set_elements(&st, mixed, 4);
  MPI_Get_count(&st, mixed, &count);
  CHECK(count == 2, "4 basic elements of {int, double} are 2 whole ones: %d", count);
  MPI_Status_set_elements(&st, mixed, 3);
  MPI_Get_elements(&st, mixed, &count);
  CHECK(count == 3, "Get_elements after set_elements({int, double}, 3): %d", count);
  MPI_Get_count(&st, mixed, &count);
  CHECK(count == MPI_UNDEFINED, "3 basic elements of {int, double}: count %d", count);
  MPI_Type_free(&mixed);
  MPI_Status_set_cancelled(&st, 1);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 1, "set_cancelled(1)");
  MPI_Status_set_cancelled(&st, 0);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 0, "set_cancelled(0)");
#ifdef HAVE_STATUS_41
  int v = -1;
  MPI_Status_set_source(&st, 7);
  MPI_Status_set_tag(&st, 8);
  MPI_Status_set_error(&st, MPI_ERR_TAG);
  CHECK(st.MPI_SOURCE == 7 && st.MPI_TAG == 8 && st.MPI_ERROR == MPI_ERR_TAG, "4.1 setters");
  MPI_Status_get_source(&st, &v);
  CHECK(v == 7, "get_source %d", v);
  MPI_Status_get_tag(&st, &v);
  CHECK(v == 8, "get_tag %d", v);
  MPI_Status_get_error(&st, &v);
  CHECK(v == MPI_ERR_TAG, "get_error %d", v);
#endif
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  basic();
  cancel_and_free();
  mixed_waitall();
  setters();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_grequest\n");
  MPI_Finalize();
  return 0;
}
