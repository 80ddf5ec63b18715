/* ranks: 1 2 3 4 */
/* MPI_Cancel (issue 13 item 4): unmatched receives of every shape (specific and any
 * source, derived type, persistent, in Waitall/Testany/Test loops, freed) complete as
 * cancelled without hanging and leave the buffer alone; sends: a small (eager) send may
 * or may not be cancelled, but then it was either received or never arrives; a send
 * already matched is not cancelled; under interlace an unmatched large or synchronous
 * send is really withdrawn (MPI allows an implementation to refuse, as Open MPI does,
 * so that part is interlace-only); persistent requests keep their datatype after
 * MPI_Type_free (MPI_Start still works). */
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

#define BIG (1 << 20) /* above every eager limit: rendezvous */

static int cancelled(const MPI_Status* st) {
  int flag = -1;
  MPI_Test_cancelled(st, &flag);
  return flag;
}

static void cancel_receives(void) {
  MPI_Status st;
  MPI_Request r;
  int in = -1;
  /* Specific source, then any source and any tag: nothing is ever sent to them. */
  MPI_Irecv(&in, 1, MPI_INT, left, 700, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 1 && r == MPI_REQUEST_NULL && in == -1, "specific-source receive");
  MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 1 && in == -1, "any-source receive");
  /* A large receive and a derived (strided) type. */
  char* big = malloc(BIG);
  memset(big, 7, BIG);
  MPI_Irecv(big, BIG, MPI_CHAR, left, 701, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 1 && big[0] == 7 && big[BIG - 1] == 7, "large receive");
  MPI_Datatype vec;
  MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int strided[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  MPI_Irecv(strided, 1, vec, left, 702, MPI_COMM_WORLD, &r);
  MPI_Type_free(&vec);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 1 && strided[0] == -1 && strided[6] == -1, "derived-type receive");
  /* Completed by Test in a loop, by Testany and by Waitall. */
  int flag = 0;
  MPI_Irecv(&in, 1, MPI_INT, left, 703, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  for (int i = 0; i < 1000000 && !flag; ++i) MPI_Test(&r, &flag, &st);
  CHECK(flag && cancelled(&st) == 1, "Test loop on a cancelled receive: flag %d", flag);
  MPI_Request two[2];
  MPI_Status sts[2];
  MPI_Irecv(&in, 1, MPI_INT, left, 704, MPI_COMM_WORLD, &two[0]);
  MPI_Irecv(&in, 1, MPI_INT, left, 705, MPI_COMM_WORLD, &two[1]);
  MPI_Cancel(&two[0]);
  MPI_Cancel(&two[1]);
  MPI_Waitall(2, two, sts);
  CHECK(cancelled(&sts[0]) == 1 && cancelled(&sts[1]) == 1, "Waitall of cancelled receives");
  int index = -1;
  MPI_Irecv(&in, 1, MPI_INT, left, 706, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  flag = 0;
  for (int i = 0; i < 1000000 && !flag; ++i) MPI_Testany(1, &r, &index, &flag, &st);
  CHECK(flag && index == 0 && cancelled(&st) == 1, "Testany: flag %d index %d", flag, index);
  /* Cancel then free: nothing left behind (a later message with that tag is received). */
  MPI_Irecv(&in, 1, MPI_INT, left, 707, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Request_free(&r);
  CHECK(r == MPI_REQUEST_NULL, "Request_free of a cancelled receive");
  MPI_Barrier(MPI_COMM_WORLD); /* every rank cancelled before anything is sent */
  int out = rank;
  MPI_Sendrecv(&out, 1, MPI_INT, right, 707, &in, 1, MPI_INT, left, 707, MPI_COMM_WORLD, &st);
  CHECK(in == left && cancelled(&st) == 0, "message after a cancelled receive: %d", in);
  /* A persistent receive: cancelled in one round, used normally in the next. */
  MPI_Recv_init(&in, 1, MPI_INT, left, 708, MPI_COMM_WORLD, &r);
  MPI_Start(&r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 1 && r != MPI_REQUEST_NULL, "persistent receive cancel");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Start(&r);
  MPI_Send(&out, 1, MPI_INT, right, 708, MPI_COMM_WORLD);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 0 && in == left, "persistent receive after a cancel: %d", in);
  MPI_Request_free(&r);
  free(big);
}

static void cancel_sends(void) {
  MPI_Status st;
  MPI_Request r;
  int out = rank * 10, in = -1, was;
  /* Small send: either outcome, but consistent with what the receiver sees. */
  MPI_Isend(&out, 1, MPI_INT, right, 710, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  was = cancelled(&st);
  int theirs = -1;
  MPI_Sendrecv(&was, 1, MPI_INT, right, 711, &theirs, 1, MPI_INT, left, 711, MPI_COMM_WORLD, &st);
  if (!theirs) {
    MPI_Recv(&in, 1, MPI_INT, left, 710, MPI_COMM_WORLD, &st);
    CHECK(in == left * 10, "uncancelled small send carried %d", in);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int flag = 1;
  MPI_Iprobe(left, 710, MPI_COMM_WORLD, &flag, &st);
  CHECK(!flag, "a message with tag 710 is still there");
  /* A large send the receiver has matched (its ack says so) is not cancelled. */
  char* big = malloc(BIG);
  char* got = malloc(BIG);
  memset(big, rank + 1, BIG);
  MPI_Request rr;
  MPI_Irecv(got, BIG, MPI_CHAR, left, 712, MPI_COMM_WORLD, &rr);
  MPI_Isend(big, BIG, MPI_CHAR, right, 712, MPI_COMM_WORLD, &r);
  MPI_Wait(&rr, &st);
  CHECK(got[0] == left + 1 && got[BIG - 1] == left + 1, "large message content");
  int ack = 1;
  MPI_Sendrecv(&ack, 1, MPI_INT, left, 713, &in, 1, MPI_INT, right, 713, MPI_COMM_WORLD, &st);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 0, "a received large send reports cancelled");
#ifdef INTERLACE_MPI
  /* Unmatched large and synchronous sends are withdrawn: the wait returns cancelled and
   * the receiver never sees them. */
  MPI_Isend(big, BIG, MPI_CHAR, right, 714, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 1, "unmatched large send not cancelled");
  MPI_Issend(&out, 1, MPI_INT, right, 715, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 1, "unmatched synchronous send not cancelled");
  /* A persistent synchronous send: cancelled, then restarted and received. */
  MPI_Ssend_init(&out, 1, MPI_INT, right, 716, MPI_COMM_WORLD, &r);
  MPI_Start(&r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 1, "persistent synchronous send not cancelled");
  MPI_Barrier(MPI_COMM_WORLD); /* no receive for 716 before every rank cancelled */
  MPI_Start(&r);
  MPI_Recv(&in, 1, MPI_INT, left, 716, MPI_COMM_WORLD, &st);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 0 && in == left * 10, "restarted persistent send: %d", in);
  MPI_Request_free(&r);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Iprobe(MPI_ANY_SOURCE, 714, MPI_COMM_WORLD, &flag, &st);
  CHECK(!flag, "a cancelled large send arrived");
  MPI_Iprobe(MPI_ANY_SOURCE, 715, MPI_COMM_WORLD, &flag, &st);
  CHECK(!flag, "a cancelled synchronous send arrived");
#endif
  free(big);
  free(got);
}

/* Item 4(a): the request keeps the datatype; freeing it before MPI_Start is allowed. */
static void persistent_keeps_type(void) {
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int src[6] = {rank, -1, rank + 1, -1, rank + 2, -1}, dst[6] = {0, 0, 0, 0, 0, 0};
  MPI_Request s, r;
  MPI_Send_init(src, 1, vec, right, 720, MPI_COMM_WORLD, &s);
  MPI_Recv_init(dst, 1, vec, left, 720, MPI_COMM_WORLD, &r);
  MPI_Type_free(&vec);
  for (int round = 0; round < 2; ++round) {
    MPI_Start(&r);
    MPI_Start(&s);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(dst[0] == left && dst[2] == left + 1 && dst[4] == left + 2 && dst[1] == 0,
          "round %d: persistent strided message after Type_free: %d %d %d %d", round, dst[0],
          dst[1], dst[2], dst[4]);
  }
  MPI_Request_free(&s);
  MPI_Request_free(&r);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  right = (rank + 1) % nranks;
  left = (rank + nranks - 1) % nranks;
  cancel_receives();
  cancel_sends();
  persistent_keeps_type();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_cancel\n");
  MPI_Finalize();
  return 0;
}
