/* ranks: 1 2 3 4 */
/* Point-to-point beyond MPI 3.0's basics: MPI_Bsend_init and MPI_Rsend_init (several
 * rounds, the attached buffer reused), and, from MPI 4 on, MPI_Isendrecv and
 * MPI_Isendrecv_replace (with a derived type), the large-count `_c` forms, MPI 4.1's
 * MPI_Request_get_status_any/all/some (test without freeing), and MPI_ERR_COUNT for a
 * large count above what the library carries (interlace). */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
#define HAVE_MPI4 1
#endif
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1) || defined(INTERLACE_MPI)
#define HAVE_MPI41 1
#endif

static void persistent_buffered_ready(void) {
  int size = 4 * (16 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  void* buf = malloc(size);
  MPI_Buffer_attach(buf, size);
  int out[16], in[16];
  MPI_Request s, r;
  MPI_Bsend_init(out, 16, MPI_INT, right, 30, MPI_COMM_WORLD, &s);
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 16; ++i) out[i] = rank * 100 + round * 16 + i;
    MPI_Start(&s);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    for (int i = 0; i < 16; ++i) out[i] = -7; /* the data was copied at MPI_Start */
    MPI_Recv(in, 16, MPI_INT, left, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 16; ++i)
      CHECK(in[i] == left * 100 + round * 16 + i, "Bsend_init round %d element %d: %d", round, i, in[i]);
  }
  MPI_Request_free(&s);
  void* back;
  int back_size;
  MPI_Buffer_detach(&back, &back_size);
  CHECK(back == buf && back_size == size, "detached buffer");
  free(buf);
  /* Ready send: the receive is posted (and everyone knows it) before MPI_Start. */
  MPI_Rsend_init(out, 16, MPI_INT, right, 31, MPI_COMM_WORLD, &s);
  for (int round = 0; round < 3; ++round) {
    MPI_Irecv(in, 16, MPI_INT, left, 31, MPI_COMM_WORLD, &r);
    for (int i = 0; i < 16; ++i) out[i] = rank + round * 1000 + i;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Start(&s);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(in[5] == left + round * 1000 + 5, "Rsend_init round %d: %d", round, in[5]);
  }
  MPI_Request_free(&s);
}

#ifdef HAVE_MPI4
static void isendrecv(void) {
  int out = rank * 3, in = -1;
  MPI_Request r;
  MPI_Status st;
  MPI_Isendrecv(&out, 1, MPI_INT, right, 40, &in, 1, MPI_INT, left, 40, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, &st);
  CHECK(in == left * 3 && st.MPI_SOURCE == left && st.MPI_TAG == 40, "Isendrecv: %d", in);
  /* Replace with a strided type: the outgoing data is taken before the receive lands. */
  int v[6] = {rank, -1, rank + 1, -1, rank + 2, -1};
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Isendrecv_replace(v, 1, vec, right, 41, left, 41, MPI_COMM_WORLD, &r);
  MPI_Type_free(&vec);
  int flag = 0;
  while (!flag) MPI_Test(&r, &flag, &st);
  CHECK(v[0] == left && v[2] == left + 1 && v[4] == left + 2 && v[1] == -1,
        "Isendrecv_replace: %d %d %d %d", v[0], v[1], v[2], v[4]);
}

static void large_count(void) {
  MPI_Count n = 1000;
  int* out = malloc(1000 * sizeof(int));
  int* in = malloc(1000 * sizeof(int));
  for (int i = 0; i < 1000; ++i) out[i] = rank * 7 + i;
  MPI_Request r[2];
  MPI_Irecv_c(in, n, MPI_INT, left, 50, MPI_COMM_WORLD, &r[0]);
  MPI_Isend_c(out, n, MPI_INT, right, 50, MPI_COMM_WORLD, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  CHECK(in[999] == left * 7 + 999, "Isend_c/Irecv_c: %d", in[999]);
  MPI_Sendrecv_c(out, n, MPI_INT, right, 51, in, n, MPI_INT, left, 51, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  CHECK(in[1] == left * 7 + 1, "Sendrecv_c: %d", in[1]);
  if (rank % 2 == 0) {
    MPI_Send_c(out, n, MPI_INT, right, 52, MPI_COMM_WORLD);
    MPI_Recv_c(in, n, MPI_INT, left, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv_c(in, n, MPI_INT, left, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send_c(out, n, MPI_INT, right, 52, MPI_COMM_WORLD);
  }
  CHECK(in[500] == left * 7 + 500, "Send_c/Recv_c: %d", in[500]);
  MPI_Request s, q;
  MPI_Send_init_c(out, n, MPI_INT, right, 53, MPI_COMM_WORLD, &s);
  MPI_Recv_init_c(in, n, MPI_INT, left, 53, MPI_COMM_WORLD, &q);
  MPI_Start(&q);
  MPI_Start(&s);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  CHECK(in[2] == left * 7 + 2, "Send_init_c: %d", in[2]);
  MPI_Request_free(&s);
  MPI_Request_free(&q);
#ifdef INTERLACE_MPI
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls = -1;
  int rc = MPI_Send_c(out, (MPI_Count)INT_MAX + 1, MPI_INT, right, 54, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COUNT, "a count above INT_MAX: class %d", cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
  free(out);
  free(in);
}
#endif

#ifdef HAVE_MPI41
static void get_status_family(void) {
  int out = rank, in[2] = {-1, -1}, flag = 0, index = -1, outcount = -1, idx[2];
  MPI_Request r[2];
  MPI_Status st, sts[2];
  MPI_Irecv(&in[0], 1, MPI_INT, left, 60, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&in[1], 1, MPI_INT, left, 61, MPI_COMM_WORLD, &r[1]);
  MPI_Request_get_status_all(2, r, &flag, sts);
  CHECK(!flag, "get_status_all before any send");
  MPI_Barrier(MPI_COMM_WORLD); /* every rank checked before anything is sent */
  MPI_Send(&out, 1, MPI_INT, right, 60, MPI_COMM_WORLD);
  flag = 0;
  while (!flag) MPI_Request_get_status_any(2, r, &index, &flag, &st);
  CHECK(index == 0 && r[0] != MPI_REQUEST_NULL && st.MPI_TAG == 60, "get_status_any: %d", index);
  MPI_Request_get_status_some(2, r, &outcount, idx, sts);
  CHECK(outcount == 1 && idx[0] == 0 && r[0] != MPI_REQUEST_NULL, "get_status_some: %d", outcount);
  MPI_Barrier(MPI_COMM_WORLD); /* tag 61 goes out only after every rank checked */
  MPI_Send(&out, 1, MPI_INT, right, 61, MPI_COMM_WORLD);
  flag = 0;
  while (!flag) MPI_Request_get_status_all(2, r, &flag, sts);
  CHECK(sts[1].MPI_TAG == 61 && r[1] != MPI_REQUEST_NULL, "get_status_all");
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  CHECK(in[0] == left && in[1] == left, "values %d %d", in[0], in[1]);
  MPI_Request_get_status_any(2, r, &index, &flag, &st);
  CHECK(flag && index == MPI_UNDEFINED, "get_status_any of null requests");
}
#endif

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  right = (rank + 1) % nranks;
  left = (rank + nranks - 1) % nranks;
  persistent_buffered_ready();
#ifdef HAVE_MPI4
  isendrecv();
  large_count();
#endif
#ifdef HAVE_MPI41
  get_status_family();
#endif
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_p2p4\n");
  MPI_Finalize();
  return 0;
}
