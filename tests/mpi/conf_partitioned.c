/* ranks: 1 2 3 4 */
/* Partitioned communication (MPI 4): MPI_Psend_init/Precv_init around a ring, several
 * rounds through MPI_Start/MPI_Wait, partitions marked ready one at a time in reverse,
 * by MPI_Pready_range and by MPI_Pready_list, MPI_Parrived polled per partition, the
 * content checked each round, errors for a bad partition. Libraries before MPI 4 (Open
 * MPI 4.1) lack these calls: the program then only checks that it runs. */
#include <mpi.h>
#include <stdio.h>

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

#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
#define PARTS 8
#define COUNT 1000 /* 8 x 1000 ints: 32 KB, and the large round below */

static int sendbuf[PARTS * COUNT], recvbuf[PARTS * COUNT];

static void rounds(void) {
  MPI_Request s, r;
  MPI_Psend_init(sendbuf, PARTS, COUNT, MPI_INT, right, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
  MPI_Precv_init(recvbuf, PARTS, COUNT, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < PARTS * COUNT; ++i) {
      sendbuf[i] = rank * 100000 + round * 10000 + i;
      recvbuf[i] = -1;
    }
    MPI_Start(&r);
    MPI_Start(&s);
    if (round == 0) {
      for (int p = PARTS - 1; p >= 0; --p) MPI_Pready(p, s);
    } else if (round == 1) {
      MPI_Pready_range(0, PARTS / 2 - 1, s);
      MPI_Pready_range(PARTS / 2, PARTS - 1, s);
    } else {
      int list[PARTS];
      for (int p = 0; p < PARTS; ++p) list[p] = (p * 3) % PARTS; /* a permutation */
      MPI_Pready_list(PARTS, list, s);
    }
    int arrived = 0;
    while (arrived < PARTS) {
      arrived = 0;
      for (int p = 0; p < PARTS; ++p) {
        int flag = 0;
        MPI_Parrived(r, p, &flag);
        if (flag) {
          CHECK(recvbuf[p * COUNT] == left * 100000 + round * 10000 + p * COUNT,
                "round %d partition %d arrived with %d", round, p, recvbuf[p * COUNT]);
          ++arrived;
        }
      }
    }
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < PARTS * COUNT; ++i)
      CHECK(recvbuf[i] == left * 100000 + round * 10000 + i, "round %d element %d is %d", round,
            i, recvbuf[i]);
  }
  MPI_Request_free(&s);
  MPI_Request_free(&r);
}

static void errors(void) {
  MPI_Request s;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Psend_init(sendbuf, 2, 1, MPI_INT, right, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
  int rc = MPI_Pready(0, s), cls = MPI_SUCCESS;
  CHECK(rc != MPI_SUCCESS, "MPI_Pready before MPI_Start succeeded");
  MPI_Start(&s);
  rc = MPI_Pready(2, s);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS, "MPI_Pready of partition 2 of 2 succeeded");
  MPI_Pready(0, s);
  rc = MPI_Pready(0, s);
  CHECK(rc != MPI_SUCCESS, "marking partition 0 twice succeeded");
  MPI_Pready(1, s);
  int in[2];
  MPI_Recv(in, 2, MPI_INT, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Request_free(&s);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}
#endif

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  right = (rank + 1) % nranks;
  left = (rank + nranks - 1) % nranks;
#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
  rounds();
  errors();
#endif
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_partitioned\n");
  MPI_Finalize();
  return 0;
}
