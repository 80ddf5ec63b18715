/* ranks: 1 2 3 4 */
/* MPI_THREAD_MULTIPLE: several threads of every rank in MPI at once, each with checked
 * content: ring traffic per thread (blocking, non-blocking, Sendrecv, small and large
 * messages, one tag per thread), a blocking receive that only another thread of the same
 * rank can satisfy, matched probes on any source (each message received exactly once),
 * collectives on one communicator per thread, a generalized request completed by
 * another thread while the main thread waits, and partitions of one partitioned send
 * marked ready by different threads. */
#include <mpi.h>
#include <pthread.h>
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

#define NT 4
#define ITERS 60
#define BIGN (40 * 1024) /* ints: 160 KB, above the eager limit */

static MPI_Comm comms[NT];

static void* ring(void* arg) {
  const int t = (int)(long)arg;
  int* out = malloc(BIGN * sizeof(int));
  int* in = malloc(BIGN * sizeof(int));
  for (int it = 0; it < ITERS; ++it) {
    const int n = (it % 10 == 3) ? BIGN : 1 + it % 7;
    for (int i = 0; i < n; ++i) out[i] = rank * 1000000 + t * 10000 + it * 10 + i % 10;
    MPI_Status st;
    switch (it % 3) {
      case 0: {
        MPI_Request r;
        MPI_Irecv(in, n, MPI_INT, left, t, MPI_COMM_WORLD, &r);
        MPI_Send(out, n, MPI_INT, right, t, MPI_COMM_WORLD);
        MPI_Wait(&r, &st);
        break;
      }
      case 1: {
        MPI_Request r[2];
        MPI_Isend(out, n, MPI_INT, right, t, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(in, n, MPI_INT, left, t, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        break;
      }
      default:
        MPI_Sendrecv(out, n, MPI_INT, right, t, in, n, MPI_INT, left, t, MPI_COMM_WORLD, &st);
    }
    for (int i = 0; i < n; ++i)
      CHECK(in[i] == left * 1000000 + t * 10000 + it * 10 + i % 10,
            "thread %d iteration %d element %d: %d", t, it, i, in[i]);
  }
  free(out);
  free(in);
  return NULL;
}

/* Thread t: collectives on its own communicator (a barrier and an allreduce). */
static void* collectives(void* arg) {
  const int t = (int)(long)arg;
  for (int it = 0; it < 20; ++it) {
    int v = rank + t + it, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comms[t]);
    CHECK(sum == nranks * (nranks - 1) / 2 + nranks * (t + it), "thread %d allreduce %d", t, sum);
    MPI_Barrier(comms[t]);
  }
  return NULL;
}

/* Threads probe any source with their own tag: every message is received exactly once. */
static void* mprobes(void* arg) {
  const int t = (int)(long)arg;
  for (int d = 0; d < nranks; ++d) {
    int v = rank * 100 + t;
    MPI_Send(&v, 1, MPI_INT, d, 300 + t, MPI_COMM_WORLD);
  }
  int* seen = calloc(nranks, sizeof(int));
  for (int k = 0; k < nranks; ++k) {
    MPI_Message m;
    MPI_Status st;
    int v = -1;
    MPI_Mprobe(MPI_ANY_SOURCE, 300 + t, MPI_COMM_WORLD, &m, &st);
    MPI_Mrecv(&v, 1, MPI_INT, &m, &st);
    CHECK(v == st.MPI_SOURCE * 100 + t && !seen[st.MPI_SOURCE], "thread %d mprobe got %d from %d",
          t, v, st.MPI_SOURCE);
    seen[st.MPI_SOURCE] = 1;
  }
  free(seen);
  return NULL;
}

static void run_threads(void* (*fn)(void*)) {
  pthread_t th[NT];
  for (long t = 0; t < NT; ++t) pthread_create(&th[t], NULL, fn, (void*)t);
  for (int t = 0; t < NT; ++t) pthread_join(th[t], NULL);
}

/* A blocking receive on one thread that only a later send of another thread satisfies. */
static void* late_sender(void* arg) {
  (void)arg;
  int v = 4242 + rank;
  MPI_Send(&v, 1, MPI_INT, rank, 500, MPI_COMM_WORLD);
  return NULL;
}

static void same_rank(void) {
  pthread_t th;
  int v = -1;
  MPI_Request r;
  MPI_Irecv(&v, 1, MPI_INT, rank, 501, MPI_COMM_WORLD, &r); /* never sent: cancelled below */
  pthread_create(&th, NULL, late_sender, NULL);
  MPI_Recv(&v, 1, MPI_INT, rank, 500, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  pthread_join(th, NULL);
  CHECK(v == 4242 + rank, "same-rank message %d", v);
  MPI_Cancel(&r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static int query_fn(void* extra, MPI_Status* st) {
  (void)extra;
  MPI_Status_set_elements(st, MPI_BYTE, 0);
  MPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = 77;
  return MPI_SUCCESS;
}
static int free_fn(void* extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int cancel_fn(void* extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}
static void* completer(void* arg) {
  MPI_Request r = *(MPI_Request*)arg;
  int flag = 0, v;
  /* Some MPI traffic of its own first, so the main thread is already waiting. */
  MPI_Sendrecv(&rank, 1, MPI_INT, 0, 600, &v, 1, MPI_INT, 0, 600, MPI_COMM_SELF,
               MPI_STATUS_IGNORE);
  MPI_Initialized(&flag);
  MPI_Grequest_complete(r);
  return NULL;
}

static void grequest(void) {
  MPI_Request r, copy;
  MPI_Status st;
  pthread_t th;
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &r);
  copy = r;
  pthread_create(&th, NULL, completer, &copy);
  MPI_Wait(&r, &st);
  pthread_join(th, NULL);
  CHECK(st.MPI_TAG == 77 && r == MPI_REQUEST_NULL, "generalized request status tag %d", st.MPI_TAG);
}

#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
static MPI_Request psend;
static void* mark(void* arg) {
  MPI_Pready((int)(long)arg, psend);
  return NULL;
}
static void partitioned(void) {
  int out[NT * 4], in[NT * 4];
  MPI_Request precv;
  for (int i = 0; i < NT * 4; ++i) out[i] = rank * 100 + i, in[i] = -1;
  MPI_Psend_init(out, NT, 4, MPI_INT, right, 700, MPI_COMM_WORLD, MPI_INFO_NULL, &psend);
  MPI_Precv_init(in, NT, 4, MPI_INT, left, 700, MPI_COMM_WORLD, MPI_INFO_NULL, &precv);
  MPI_Start(&precv);
  MPI_Start(&psend);
  pthread_t th[NT];
  for (long t = 0; t < NT; ++t) pthread_create(&th[t], NULL, mark, (void*)t);
  MPI_Wait(&psend, MPI_STATUS_IGNORE); /* returns once every thread marked its partition */
  MPI_Wait(&precv, MPI_STATUS_IGNORE);
  for (int t = 0; t < NT; ++t) pthread_join(th[t], NULL);
  for (int i = 0; i < NT * 4; ++i) CHECK(in[i] == left * 100 + i, "partition element %d: %d", i, in[i]);
  MPI_Request_free(&psend);
  MPI_Request_free(&precv);
}
#endif

int main(int argc, char** argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int query = -1;
  MPI_Query_thread(&query);
  CHECK(query == provided, "Query_thread %d, Init_thread gave %d", query, provided);
#ifdef INTERLACE_MPI
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
#endif
  if (provided == MPI_THREAD_MULTIPLE) {
    right = (rank + 1) % nranks;
    left = (rank + nranks - 1) % nranks;
    for (int t = 0; t < NT; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    run_threads(ring);
    run_threads(collectives);
    run_threads(mprobes);
    same_rank();
    grequest();
#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
    partitioned();
#endif
    for (int t = 0; t < NT; ++t) MPI_Comm_free(&comms[t]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_threads\n");
  MPI_Finalize();
  return 0;
}
