/* ranks: 1 2 3 4 8 */
/* MPI_Alltoallw: a different count, datatype and byte displacement per peer (rank r
 * sends r+j+1 ints to rank j; a strided vector type receives from odd ranks), the
 * MPI_IN_PLACE form, MPI_Ialltoallw with several in flight, zero counts, and (MPI 4)
 * MPI_Alltoallw_init restarted with new data. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static _Noreturn void fail(const char *what, int a, int b) {
  fprintf(stderr, "FAIL: rank %d: %s (%d, %d)\n", rank, what, a, b);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1); /* not reached */
}
#define CHECK(cond, what, a, b) \
  do {                          \
    if (!(cond)) fail(what, a, b); \
  } while (0)

static int val(int from, int to, int e, int round) { return from * 100000 + to * 1000 + e * 10 + round; }
static int n_of(int from, int to) { return from + to + 1; }

/* Buffers of one exchange: the send side packs the block for rank j contiguously
 * (MPI_INT) at a byte displacement; the receive side uses a stride-2 vector type for
 * blocks from odd ranks (one vector of n ints) and MPI_INT for even ones. */
typedef struct {
  int *sbuf, *rbuf;
  int sc[64], sd[64], rc[64], rd[64];
  MPI_Datatype st[64], rt[64], vec[64];
} Ex;

static void setup(Ex *x) {
  int soff = 0, roff = 0;
  for (int j = 0; j < size; ++j) {
    x->sc[j] = n_of(rank, j);
    x->sd[j] = soff * (int)sizeof(int);
    x->st[j] = MPI_INT;
    soff += x->sc[j];
    const int n = n_of(j, rank);
    x->vec[j] = MPI_DATATYPE_NULL;
    if (j % 2) {
      MPI_Type_vector(n, 1, 2, MPI_INT, &x->vec[j]);
      MPI_Type_commit(&x->vec[j]);
      x->rc[j] = 1;
      x->rt[j] = x->vec[j];
      x->rd[j] = roff * (int)sizeof(int);
      roff += 2 * n;
    } else {
      x->rc[j] = n;
      x->rt[j] = MPI_INT;
      x->rd[j] = roff * (int)sizeof(int);
      roff += n;
    }
  }
  x->sbuf = malloc(sizeof(int) * (size_t)soff);
  x->rbuf = malloc(sizeof(int) * (size_t)roff);
}

static void fill(Ex *x, int round) {
  for (int j = 0; j < size; ++j)
    for (int e = 0; e < x->sc[j]; ++e) x->sbuf[x->sd[j] / (int)sizeof(int) + e] = val(rank, j, e, round);
  for (int j = 0; j < size; ++j) {
    const int n = n_of(j, rank), span = j % 2 ? 2 * n : n;
    for (int e = 0; e < span; ++e) x->rbuf[x->rd[j] / (int)sizeof(int) + e] = -1;
  }
}

static void verify(const Ex *x, int round, const char *what) {
  for (int j = 0; j < size; ++j) {
    const int n = n_of(j, rank), stride = j % 2 ? 2 : 1;
    const int *b = x->rbuf + x->rd[j] / (int)sizeof(int);
    for (int e = 0; e < n; ++e) CHECK(b[e * stride] == val(j, rank, e, round), what, j, b[e * stride]);
    if (stride == 2)
      for (int e = 0; e < n; ++e) CHECK(b[2 * e + 1] == -1, "the gaps of the vector type stay untouched", j, e);
  }
}

static void release(Ex *x) {
  for (int j = 0; j < size; ++j)
    if (x->vec[j] != MPI_DATATYPE_NULL) MPI_Type_free(&x->vec[j]);
  free(x->sbuf);
  free(x->rbuf);
}

/* In place: every rank exchanges k = 2 ints with every rank through recvbuf. */
static void in_place(void) {
  int *buf = malloc(sizeof(int) * 2 * (size_t)size), c[64], d[64];
  MPI_Datatype t[64];
  for (int j = 0; j < size; ++j) {
    c[j] = 2, d[j] = 2 * j * (int)sizeof(int), t[j] = MPI_INT;
    buf[2 * j] = val(rank, j, 0, 7), buf[2 * j + 1] = val(rank, j, 1, 7);
  }
  MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, c, d, t, MPI_COMM_WORLD);
  for (int j = 0; j < size; ++j)
    CHECK(buf[2 * j] == val(j, rank, 0, 7) && buf[2 * j + 1] == val(j, rank, 1, 7), "in-place block", j, buf[2 * j]);
  free(buf);
}

/* Zero counts everywhere except to the next rank. */
static void sparse(void) {
  int c[64], d[64], rc[64], one = val(rank, 0, 0, 3), got = -1;
  MPI_Datatype t[64];
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int j = 0; j < size; ++j) c[j] = j == next, rc[j] = j == prev, d[j] = 0, t[j] = MPI_INT;
  MPI_Alltoallw(&one, c, d, t, &got, rc, d, t, MPI_COMM_WORLD);
  CHECK(got == val(prev, 0, 0, 3), "the only non-empty block", got, prev);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 64) fail("at most 64 ranks", size, 64);
  Ex a, b;
  setup(&a);
  setup(&b);
  fill(&a, 0);
  MPI_Alltoallw(a.sbuf, a.sc, a.sd, a.st, a.rbuf, a.rc, a.rd, a.rt, MPI_COMM_WORLD);
  verify(&a, 0, "blocking alltoallw");

  MPI_Request r[2];
  fill(&a, 1);
  fill(&b, 2);
  MPI_Ialltoallw(a.sbuf, a.sc, a.sd, a.st, a.rbuf, a.rc, a.rd, a.rt, MPI_COMM_WORLD, &r[0]);
  MPI_Ialltoallw(b.sbuf, b.sc, b.sd, b.st, b.rbuf, b.rc, b.rd, b.rt, MPI_COMM_WORLD, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  verify(&a, 1, "first of two Ialltoallw");
  verify(&b, 2, "second of two Ialltoallw");

#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
  MPI_Request p;
  MPI_Alltoallw_init(a.sbuf, a.sc, a.sd, a.st, a.rbuf, a.rc, a.rd, a.rt, MPI_COMM_WORLD, MPI_INFO_NULL, &p);
  for (int round = 3; round < 6; ++round) {
    fill(&a, round);
    MPI_Start(&p);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
    verify(&a, round, "persistent alltoallw");
  }
  MPI_Request_free(&p);
#endif
  in_place();
  sparse();
  release(&a);
  release(&b);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_alltoallw\n");
  MPI_Finalize();
  return 0;
}
