/* ranks: 1 2 3 4 8 */
/* Point-to-point: every send mode (standard, synchronous, buffered, ready; blocking and
 * non-blocking), Sendrecv(_replace), persistent requests, Probe/Iprobe, Get_count /
 * Get_elements, MPI_PROC_NULL, MPI_ANY_SOURCE / MPI_ANY_TAG, non-overtaking order, a
 * large (rendezvous) message, derived and pair datatypes, truncation under
 * MPI_ERRORS_RETURN. Messages go around the ring rank -> rank+1 (a rank talks to itself
 * when run alone), so every pattern works for any number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
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

#define N 64

static void fill(int* v, int n, int from, int salt) {
  for (int i = 0; i < n; ++i) v[i] = from * 100000 + salt * 1000 + i;
}

static void expect_ints(const int* v, int n, int from, int salt, const char* what) {
  for (int i = 0; i < n; ++i)
    CHECK(v[i] == from * 100000 + salt * 1000 + i, "%s: element %d is %d, expected %d", what, i,
          v[i], from * 100000 + salt * 1000 + i);
}

static void expect_status(const MPI_Status* st, int source, int tag, int count, const char* what) {
  int n;
  MPI_Get_count(st, MPI_INT, &n);
  CHECK(st->MPI_SOURCE == source, "%s: status source %d, expected %d", what, st->MPI_SOURCE,
        source);
  CHECK(st->MPI_TAG == tag, "%s: status tag %d, expected %d", what, st->MPI_TAG, tag);
  CHECK(n == count, "%s: Get_count %d, expected %d", what, n, count);
}

/* Receive first (non-blocking), then the blocking send mode under test: safe for any
 * size, including a rank sending to itself. */
typedef int (*blocking_send)(const void*, int, MPI_Datatype, int, int, MPI_Comm);

static void blocking_modes(void) {
  struct { blocking_send fn; const char* name; } modes[] = {
      {MPI_Send, "MPI_Send"}, {MPI_Ssend, "MPI_Ssend"}, {MPI_Rsend, "MPI_Rsend"}};
  for (int m = 0; m < 3; ++m) {
    int out[N], in[N];
    MPI_Request req;
    MPI_Status st;
    fill(out, N, rank, m);
    memset(in, 0, sizeof in);
    MPI_Irecv(in, N, MPI_INT, left, 10 + m, MPI_COMM_WORLD, &req);
    /* Rsend needs the matching receive posted: a barrier orders it after every Irecv. */
    MPI_Barrier(MPI_COMM_WORLD);
    modes[m].fn(out, N, MPI_INT, right, 10 + m, MPI_COMM_WORLD);
    MPI_Wait(&req, &st);
    CHECK(req == MPI_REQUEST_NULL, "%s: Wait left the request %d", modes[m].name, req);
    expect_ints(in, N, left, m, modes[m].name);
    expect_status(&st, left, 10 + m, N, modes[m].name);
  }
}

static void blocking_recv(void) {
  int out[N], in[N];
  MPI_Request req;
  MPI_Status st;
  fill(out, N, rank, 7);
  MPI_Isend(out, N, MPI_INT, right, 20, MPI_COMM_WORLD, &req);
  MPI_Recv(in, N, MPI_INT, left, 20, MPI_COMM_WORLD, &st);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  expect_ints(in, N, left, 7, "MPI_Recv");
  expect_status(&st, left, 20, N, "MPI_Recv");
  /* MPI_ANY_SOURCE + MPI_ANY_TAG report the real source and tag. */
  MPI_Isend(out, N / 2, MPI_INT, right, 21, MPI_COMM_WORLD, &req);
  MPI_Recv(in, N, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  expect_status(&st, left, 21, N / 2, "MPI_Recv(ANY_SOURCE, ANY_TAG)");
  expect_ints(in, N / 2, left, 7, "MPI_Recv(ANY_SOURCE, ANY_TAG)");
}

static void nonblocking_modes(void) {
  typedef int (*isend_fn)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
  struct { isend_fn fn; const char* name; } modes[] = {
      {MPI_Isend, "MPI_Isend"}, {MPI_Issend, "MPI_Issend"}, {MPI_Irsend, "MPI_Irsend"}};
  for (int m = 0; m < 3; ++m) {
    int out[N], in[N];
    MPI_Request reqs[2];
    MPI_Status sts[2];
    fill(out, N, rank, 30 + m);
    MPI_Irecv(in, N, MPI_INT, left, 30 + m, MPI_COMM_WORLD, &reqs[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    modes[m].fn(out, N, MPI_INT, right, 30 + m, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, sts);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "%s: Waitall left requests",
          modes[m].name);
    expect_ints(in, N, left, 30 + m, modes[m].name);
    expect_status(&sts[0], left, 30 + m, N, modes[m].name);
  }
}

static void buffered(void) {
  int out[N], out2[N], in[N];
  int size = 2 * (int)(sizeof out + MPI_BSEND_OVERHEAD);
  char* buf = malloc(size);
  void* detached;
  int detached_size;
  MPI_Request req;
  MPI_Buffer_attach(buf, size);
  fill(out, N, rank, 40);
  fill(out2, N, rank, 41);
  MPI_Bsend(out, N, MPI_INT, right, 40, MPI_COMM_WORLD);
  MPI_Ibsend(out2, N, MPI_INT, right, 41, MPI_COMM_WORLD, &req);
  memset(out, 0, sizeof out); /* the buffered copies are what travels */
  memset(out2, 0, sizeof out2);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Recv(in, N, MPI_INT, left, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect_ints(in, N, left, 40, "MPI_Bsend");
  MPI_Recv(in, N, MPI_INT, left, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect_ints(in, N, left, 41, "MPI_Ibsend");
  MPI_Buffer_detach(&detached, &detached_size);
  CHECK(detached == buf && detached_size == size, "Buffer_detach returned %p/%d, expected %p/%d",
        detached, detached_size, (void*)buf, size);
  free(buf);
}

static void sendrecv(void) {
  int out[N], in[N];
  MPI_Status st;
  fill(out, N, rank, 50);
  MPI_Sendrecv(out, N, MPI_INT, right, 50, in, N, MPI_INT, left, 50, MPI_COMM_WORLD, &st);
  expect_ints(in, N, left, 50, "MPI_Sendrecv");
  expect_status(&st, left, 50, N, "MPI_Sendrecv");
  fill(out, N, rank, 51);
  MPI_Sendrecv_replace(out, N, MPI_INT, right, 51, left, 51, MPI_COMM_WORLD, &st);
  expect_ints(out, N, left, 51, "MPI_Sendrecv_replace");
  expect_status(&st, left, 51, N, "MPI_Sendrecv_replace");
}

static void large(void) {
  const int n = 1 << 20; /* 4 MiB: the rendezvous protocol */
  int* out = malloc(n * sizeof(int));
  int* in = malloc(n * sizeof(int));
  MPI_Status st;
  for (int i = 0; i < n; ++i) out[i] = rank ^ (i * 2654435761u);
  MPI_Sendrecv(out, n, MPI_INT, right, 60, in, n, MPI_INT, left, 60, MPI_COMM_WORLD, &st);
  for (int i = 0; i < n; ++i)
    CHECK(in[i] == (int)(left ^ (i * 2654435761u)), "large message: element %d wrong", i);
  expect_status(&st, left, 60, n, "large message");
  free(out);
  free(in);
}

static void persistent(void) {
  int out[N], in[N];
  MPI_Request reqs[2];
  MPI_Status sts[2];
  MPI_Recv_init(in, N, MPI_INT, left, 70, MPI_COMM_WORLD, &reqs[0]);
  MPI_Send_init(out, N, MPI_INT, right, 70, MPI_COMM_WORLD, &reqs[1]);
  for (int iter = 0; iter < 4; ++iter) {
    fill(out, N, rank, iter);
    memset(in, 0, sizeof in);
    if (iter % 2 == 0) {
      MPI_Startall(2, reqs);
    } else {
      MPI_Start(&reqs[0]);
      MPI_Start(&reqs[1]);
    }
    MPI_Waitall(2, reqs, sts);
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL,
          "persistent requests were freed by Waitall (iteration %d)", iter);
    expect_ints(in, N, left, iter, "persistent receive");
    expect_status(&sts[0], left, 70, N, "persistent receive");
  }
  MPI_Request_free(&reqs[0]);
  MPI_Request_free(&reqs[1]);
  CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "Request_free kept handles");
  /* Ssend_init to ourselves with a pre-posted receive. */
  MPI_Request s, r;
  int v = rank + 5, got = -1;
  MPI_Ssend_init(&v, 1, MPI_INT, rank, 71, MPI_COMM_WORLD, &s);
  MPI_Irecv(&got, 1, MPI_INT, rank, 71, MPI_COMM_WORLD, &r);
  MPI_Start(&s);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(got == rank + 5, "Ssend_init to self delivered %d", got);
  MPI_Request_free(&s);
}

static void probe(void) {
  int out[N], *in;
  int flag = 0, count;
  MPI_Request req;
  MPI_Status st;
  fill(out, N, rank, 80);
  MPI_Isend(out, N - 3, MPI_INT, right, 80, MPI_COMM_WORLD, &req);
  MPI_Probe(MPI_ANY_SOURCE, 80, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 80 && count == N - 3,
        "Probe: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
  in = malloc(count * sizeof(int));
  MPI_Recv(in, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect_ints(in, count, left, 80, "probed message");
  free(in);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  /* Iprobe: nothing with tag 81 yet; then poll until the message shows up. */
  MPI_Iprobe(MPI_ANY_SOURCE, 81, MPI_COMM_WORLD, &flag, &st);
  CHECK(!flag, "Iprobe found a message that was never sent");
  MPI_Barrier(MPI_COMM_WORLD); /* nobody sends tag 81 before everyone probed */
  MPI_Isend(out, 5, MPI_INT, right, 81, MPI_COMM_WORLD, &req);
  do MPI_Iprobe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st); while (!flag);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 81 && count == 5,
        "Iprobe: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
  MPI_Recv(out + 10, 5, MPI_INT, left, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void proc_null(void) {
  int v = 1, got = 42, count = -1;
  MPI_Status st;
  MPI_Request req;
  MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0 && got == 42,
        "Recv from PROC_NULL: source %d tag %d count %d value %d", st.MPI_SOURCE, st.MPI_TAG,
        count, got);
  MPI_Irecv(&got, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, &st);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Irecv from PROC_NULL: source %d", st.MPI_SOURCE);
  MPI_Isend(&v, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, &got, 1, MPI_INT, MPI_PROC_NULL, 0,
               MPI_COMM_WORLD, &st);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && got == 42, "Sendrecv with PROC_NULL");
}

/* Rank 0 gathers one message from every rank with MPI_ANY_SOURCE. */
static void any_source(void) {
  int v = rank * 3 + 1;
  MPI_Request req;
  MPI_Isend(&v, 1, MPI_INT, 0, 90, MPI_COMM_WORLD, &req);
  if (rank == 0) {
    int seen[1024] = {0};
    for (int i = 0; i < nranks; ++i) {
      int got;
      MPI_Status st;
      MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 90, MPI_COMM_WORLD, &st);
      CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < nranks && !seen[st.MPI_SOURCE],
            "ANY_SOURCE: unexpected source %d", st.MPI_SOURCE);
      CHECK(got == st.MPI_SOURCE * 3 + 1, "ANY_SOURCE: value %d from %d", got, st.MPI_SOURCE);
      seen[st.MPI_SOURCE] = 1;
    }
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* Two messages with the same envelope arrive in the order they were sent. */
static void ordering(void) {
  int a[8], b[8], x[8], y[8];
  MPI_Request reqs[2];
  fill(a, 8, rank, 1);
  fill(b, 8, rank, 2);
  MPI_Isend(a, 8, MPI_INT, right, 95, MPI_COMM_WORLD, &reqs[0]);
  MPI_Isend(b, 8, MPI_INT, right, 95, MPI_COMM_WORLD, &reqs[1]);
  MPI_Recv(x, 8, MPI_INT, left, 95, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv(y, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  expect_ints(x, 8, left, 1, "first of two ordered messages");
  expect_ints(y, 8, left, 2, "second of two ordered messages");
}

static void derived(void) {
  double grid[12], packed[4], back[12];
  MPI_Datatype column;
  MPI_Status st;
  int count, elements;
  for (int i = 0; i < 12; ++i) grid[i] = rank * 100 + i;
  MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &column); /* elements 0, 3, 6, 9 */
  MPI_Type_commit(&column);
  MPI_Sendrecv(grid, 1, column, right, 100, packed, 4, MPI_DOUBLE, left, 100, MPI_COMM_WORLD, &st);
  for (int i = 0; i < 4; ++i)
    CHECK(packed[i] == left * 100 + 3 * i, "vector -> contiguous: element %d is %g", i, packed[i]);
  for (int i = 0; i < 12; ++i) back[i] = -1;
  MPI_Sendrecv(packed, 4, MPI_DOUBLE, right, 101, back, 1, column, left, 101, MPI_COMM_WORLD, &st);
  for (int i = 0; i < 12; ++i) {
    /* our left neighbour forwards the column it got from its own left neighbour */
    double want = i % 3 == 0 ? ((left + nranks - 1) % nranks) * 100 + i : -1;
    CHECK(back[i] == want, "contiguous -> vector: element %d is %g, expected %g", i, back[i], want);
  }
  MPI_Get_count(&st, column, &count);
  MPI_Get_elements(&st, column, &elements);
  CHECK(count == 1 && elements == 4, "vector receive: count %d elements %d", count, elements);
  /* Half a vector: Get_count is undefined, Get_elements counts the doubles. */
  MPI_Sendrecv(packed, 2, MPI_DOUBLE, right, 102, back, 1, column, left, 102, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, column, &count);
  MPI_Get_elements(&st, column, &elements);
  CHECK(count == MPI_UNDEFINED && elements == 2, "partial vector: count %d elements %d", count,
        elements);
  /* Non-blocking both ways: the packed copies live until Waitall. */
  MPI_Request reqs[2];
  for (int i = 0; i < 12; ++i) back[i] = -1;
  MPI_Irecv(back, 1, column, left, 103, MPI_COMM_WORLD, &reqs[0]);
  MPI_Isend(grid, 1, column, right, 103, MPI_COMM_WORLD, &reqs[1]);
  for (int i = 0; i < 12; ++i) grid[i] = -2; /* the send's data was packed at Isend */
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 12; ++i) {
    double want = i % 3 == 0 ? left * 100 + i : -1;
    CHECK(back[i] == want, "Isend/Irecv of a vector: element %d is %g, expected %g", i, back[i],
          want);
  }
  /* Sendrecv_replace in place through the vector type. */
  for (int i = 0; i < 12; ++i) grid[i] = rank * 100 + i;
  MPI_Sendrecv_replace(grid, 1, column, right, 104, left, 104, MPI_COMM_WORLD, &st);
  for (int i = 0; i < 12; ++i) {
    double want = i % 3 == 0 ? left * 100 + i : rank * 100 + i;
    CHECK(grid[i] == want, "Sendrecv_replace of a vector: element %d is %g, expected %g", i,
          grid[i], want);
  }
  MPI_Type_free(&column);
}

static void pairs(void) {
  struct { double v; int i; } out[3], in[3];
  int count;
  MPI_Status st;
  for (int k = 0; k < 3; ++k) {
    out[k].v = rank + 0.5 * k;
    out[k].i = rank * 10 + k;
  }
  MPI_Sendrecv(out, 3, MPI_DOUBLE_INT, right, 110, in, 3, MPI_DOUBLE_INT, left, 110,
               MPI_COMM_WORLD, &st);
  for (int k = 0; k < 3; ++k)
    CHECK(in[k].v == left + 0.5 * k && in[k].i == left * 10 + k, "DOUBLE_INT pair %d: %g %d", k,
          in[k].v, in[k].i);
  MPI_Get_count(&st, MPI_DOUBLE_INT, &count);
  CHECK(count == 3, "DOUBLE_INT Get_count %d", count);
}

static void counts(void) {
  unsigned char bytes[3] = {1, 2, 3}, got[8];
  int count;
  MPI_Status st;
  MPI_Sendrecv(bytes, 3, MPI_BYTE, right, 120, got, 8, MPI_BYTE, left, 120, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK(count == 3, "Get_count(BYTE) %d", count);
  MPI_Get_count(&st, MPI_SHORT, &count);
  CHECK(count == MPI_UNDEFINED, "Get_count(SHORT) of 3 bytes is %d, expected MPI_UNDEFINED", count);
  MPI_Get_elements(&st, MPI_BYTE, &count);
  CHECK(count == 3, "Get_elements(BYTE) %d", count);
  /* Zero-length messages. */
  MPI_Sendrecv(NULL, 0, MPI_INT, right, 121, NULL, 0, MPI_INT, left, 121, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 0 && st.MPI_SOURCE == left && st.MPI_TAG == 121, "empty message: count %d", count);
}

static void truncation(void) {
  int out[10], in[5], cls;
  MPI_Status st;
  MPI_Request req;
  fill(out, 10, rank, 9);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Isend(out, 10, MPI_INT, right, 130, MPI_COMM_WORLD, &req);
  int rc = MPI_Recv(in, 5, MPI_INT, left, 130, MPI_COMM_WORLD, &st);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE, "truncated Recv returned class %d, expected MPI_ERR_TRUNCATE",
        cls);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 130, "truncated Recv: status source %d tag %d",
        st.MPI_SOURCE, st.MPI_TAG);
  for (int i = 0; i < 5; ++i)
    CHECK(in[i] == left * 100000 + 9 * 1000 + i, "truncated Recv: element %d is %d", i, in[i]);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  /* The same through Irecv + Wait. */
  MPI_Isend(out, 10, MPI_INT, right, 131, MPI_COMM_WORLD, &req);
  MPI_Request r;
  MPI_Irecv(in, 5, MPI_INT, left, 131, MPI_COMM_WORLD, &r);
  rc = MPI_Wait(&r, &st);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE, "truncated Irecv+Wait returned class %d", cls);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  /* Communication goes on normally afterwards. */
  sendrecv();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  right = (rank + 1) % nranks;
  left = (rank + nranks - 1) % nranks;
  blocking_modes();
  blocking_recv();
  nonblocking_modes();
  buffered();
  sendrecv();
  large();
  persistent();
  probe();
  proc_null();
  any_source();
  ordering();
  derived();
  pairs();
  counts();
  truncation();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_p2p\n");
  MPI_Finalize();
  return 0;
}
