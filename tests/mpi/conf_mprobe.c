/* ranks: 1 2 3 4 */
/* Matched probes: MPI_Mprobe/Improbe take the message out of matching (a later probe or
 * receive does not see it, the next message with the same envelope is received
 * instead), MPI_Mrecv/Imrecv receive exactly it (small, large, derived type, any
 * source and tag), MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC, and the message handle
 * becomes MPI_MESSAGE_NULL. */
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

#define BIG (1 << 20)

static void small_and_large(void) {
  int out[2] = {rank, rank * 7}, in[2] = {-1, -1}, count, flag;
  MPI_Status st;
  MPI_Message msg;
  MPI_Request sreq[3];
  char* big = malloc(BIG);
  char* got = malloc(BIG);
  memset(big, rank + 3, BIG);
  MPI_Isend(out, 2, MPI_INT, right, 1, MPI_COMM_WORLD, &sreq[0]);
  MPI_Isend(big, BIG, MPI_CHAR, right, 2, MPI_COMM_WORLD, &sreq[1]);
  MPI_Mprobe(left, 1, MPI_COMM_WORLD, &msg, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 1 && count == 2, "Mprobe status %d %d %d",
        st.MPI_SOURCE, st.MPI_TAG, count);
  CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "Mprobe message handle");
  /* Claimed: no longer visible to probes. */
  MPI_Iprobe(left, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  CHECK(!flag, "a matched message is still visible to MPI_Iprobe");
  MPI_Mrecv(in, 2, MPI_INT, &msg, &st);
  CHECK(msg == MPI_MESSAGE_NULL && in[0] == left && in[1] == left * 7, "Mrecv: %d %d", in[0], in[1]);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 1, "Mrecv status");
  /* Large message through Improbe + Imrecv. */
  flag = 0;
  while (!flag) MPI_Improbe(left, 2, MPI_COMM_WORLD, &flag, &msg, &st);
  MPI_Get_count(&st, MPI_CHAR, &count);
  CHECK(count == BIG && st.MPI_SOURCE == left, "Improbe of the large message: count %d", count);
  MPI_Request r;
  MPI_Imrecv(got, BIG, MPI_CHAR, &msg, &r);
  CHECK(msg == MPI_MESSAGE_NULL, "Imrecv leaves the handle");
  MPI_Wait(&r, &st);
  CHECK(got[0] == left + 3 && got[BIG / 2] == left + 3 && got[BIG - 1] == left + 3,
        "large Imrecv content");
  /* Derived type on the receive side. */
  int vals[3] = {rank, rank + 1, rank + 2}, strided[6] = {0, 0, 0, 0, 0, 0};
  MPI_Isend(vals, 3, MPI_INT, right, 3, MPI_COMM_WORLD, &sreq[2]);
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Mprobe(left, 3, MPI_COMM_WORLD, &msg, &st);
  MPI_Mrecv(strided, 1, vec, &msg, &st);
  MPI_Type_free(&vec);
  CHECK(strided[0] == left && strided[2] == left + 1 && strided[4] == left + 2 && strided[1] == 0,
        "Mrecv of a vector: %d %d %d", strided[0], strided[2], strided[4]);
  MPI_Waitall(3, sreq, MPI_STATUSES_IGNORE);
  free(big);
  free(got);
}

/* The matched message is reserved: a receive posted after the probe gets the next one. */
static void reserved(void) {
  int a = 100 + rank, b = 200 + rank, x = -1, y = -1;
  MPI_Status st;
  MPI_Message msg;
  MPI_Request s[2];
  MPI_Isend(&a, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &s[0]);
  MPI_Isend(&b, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &s[1]);
  MPI_Mprobe(left, 4, MPI_COMM_WORLD, &msg, &st);
  MPI_Recv(&y, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &st);
  MPI_Mrecv(&x, 1, MPI_INT, &msg, &st);
  CHECK(x == 100 + left && y == 200 + left, "probe got %d (want %d), receive got %d (want %d)", x,
        100 + left, y, 200 + left);
  MPI_Waitall(2, s, MPI_STATUSES_IGNORE);
}

/* Any source, any tag: one message from every rank, told apart by the status. */
static void any_source(void) {
  MPI_Request* s = malloc(sizeof(MPI_Request) * nranks);
  int* out = malloc(sizeof(int) * nranks);
  int* seen = calloc(nranks, sizeof(int));
  for (int d = 0; d < nranks; ++d) {
    out[d] = rank * 1000 + d;
    MPI_Isend(&out[d], 1, MPI_INT, d, 50 + rank, MPI_COMM_WORLD, &s[d]);
  }
  for (int k = 0; k < nranks; ++k) {
    MPI_Message msg;
    MPI_Status st, st2;
    int v = -1;
    MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
    CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < nranks && st.MPI_TAG == 50 + st.MPI_SOURCE,
          "any-source Mprobe status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK(!seen[st.MPI_SOURCE], "message from %d matched twice", st.MPI_SOURCE);
    seen[st.MPI_SOURCE] = 1;
    MPI_Mrecv(&v, 1, MPI_INT, &msg, &st2);
    CHECK(v == st.MPI_SOURCE * 1000 + rank && st2.MPI_SOURCE == st.MPI_SOURCE,
          "value %d from %d", v, st.MPI_SOURCE);
  }
  MPI_Waitall(nranks, s, MPI_STATUSES_IGNORE);
  free(s);
  free(out);
  free(seen);
}

static void proc_null_and_nothing(void) {
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_Status st;
  int flag = 0, count = -1, v = 5;
  MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st);
  CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
        "Mprobe(MPI_PROC_NULL): message %d source %d", (int)(msg == MPI_MESSAGE_NO_PROC),
        st.MPI_SOURCE);
  MPI_Mrecv(&v, 1, MPI_INT, &msg, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(msg == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL && count == 0 && v == 5,
        "Mrecv(MPI_MESSAGE_NO_PROC): count %d", count);
  MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st);
  CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(MPI_PROC_NULL)");
  MPI_Request r;
  MPI_Imrecv(&v, 1, MPI_INT, &msg, &r);
  MPI_Wait(&r, &st);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv(MPI_MESSAGE_NO_PROC) status source %d", st.MPI_SOURCE);
  MPI_Improbe(left, 999, MPI_COMM_WORLD, &flag, &msg, &st);
  CHECK(!flag, "Improbe found a message nobody sent");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  right = (rank + 1) % nranks;
  left = (rank + nranks - 1) % nranks;
  small_and_large();
  reserved();
  any_source();
  proc_null_and_nothing();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_mprobe\n");
  MPI_Finalize();
  return 0;
}
