/* ranks: 1 2 3 4 8 */
/* Blocking data-moving collectives: barrier, bcast, gather(v), scatter(v), allgather(v),
 * alltoall(v) with counts 0..20000, every root, MPI_IN_PLACE where MPI allows it,
 * int/double and a derived type (vector with gaps, whose gaps must stay untouched),
 * send and receive types that differ but have the same signature; results compared
 * with values computed locally. Bad arguments (negative count, root out of range, null
 * datatype/op/communicator, an op the type does not allow) return the matching error
 * class under MPI_ERRORS_RETURN. The reductions are in conf_coll_reduce.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static MPI_Datatype vec; /* 2 ints at offsets 0 and 2 ints: extent 3 ints, gap in between */

static _Noreturn void fail(const char *what, int a, int b) {
  fprintf(stderr, "FAIL: rank %d: %s (%d, %d)\n", rank, what, a, b);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1); /* not reached */
}
#define CHECK(cond, what, a, b) \
  do {                          \
    if (!(cond)) fail(what, a, b); \
  } while (0)

#define GAP (-7)
static const int counts[] = {0, 1, 5, 20000};
#define NC 4

static int val(int r, int i) { return r * 100003 + i * 7 + 1; }
static int *ints(long long n, int fill) {
  if (n < 0 || n > (1 << 26)) fail("buffer size out of range", (int)n, 0);
  int *p = malloc((size_t)(n ? n : 1) * sizeof(int));
  if (!p) fail("out of memory", (int)n, 0);
  for (long long i = 0; i < n; ++i) p[i] = fill;
  return p;
}
/* vec layout: element e holds ints at 3e and 3e+2 */
static void vec_put(int *b, int e, int x0, int x1) { b[3 * e] = x0; b[3 * e + 2] = x1; }
static void vec_check(const int *b, int e, int x0, int x1, const char *what) {
  CHECK(b[3 * e] == x0 && b[3 * e + 2] == x1, what, e, b[3 * e]);
  CHECK(b[3 * e + 1] == GAP, "gap overwritten", e, b[3 * e + 1]);
}

static void test_bcast(void) {
  for (int root = 0; root < size; ++root)
    for (int c = 0; c < NC; ++c) {
      int n = counts[c];
      int *b = ints(n, -1);
      if (rank == root) for (int i = 0; i < n; ++i) b[i] = val(root, i);
      MPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD);
      for (int i = 0; i < n; ++i) CHECK(b[i] == val(root, i), "bcast int", root, i);
      free(b);
    }
  for (int root = 0; root < size; ++root) {
    double d[3] = {0, 0, 0};
    if (rank == root) { d[0] = 1.5 * root; d[1] = -2.25; d[2] = 1e300; }
    MPI_Bcast(d, 3, MPI_DOUBLE, root, MPI_COMM_WORLD);
    CHECK(d[0] == 1.5 * root && d[1] == -2.25 && d[2] == 1e300, "bcast double", root, 0);
    int n = 1000, *b = ints(3 * n, GAP);
    if (rank == root) for (int e = 0; e < n; ++e) vec_put(b, e, val(root, 2 * e), val(root, 2 * e + 1));
    MPI_Bcast(b, n, vec, root, MPI_COMM_WORLD);
    for (int e = 0; e < n; ++e) vec_check(b, e, val(root, 2 * e), val(root, 2 * e + 1), "bcast vec");
    free(b);
  }
}

static void test_gather_scatter(void) {
  for (int root = 0; root < size; ++root)
    for (int c = 0; c < NC; ++c) {
      int n = counts[c];
      int *s = ints(n, 0), *r = ints((long long)n * size, -1);
      for (int i = 0; i < n; ++i) s[i] = val(rank, i);
      MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
      if (rank == root)
        for (int q = 0; q < size; ++q)
          for (int i = 0; i < n; ++i) CHECK(r[q * n + i] == val(q, i), "gather", q, i);
      /* in place: the root's block already sits in recvbuf */
      for (int i = 0; i < n * size; ++i) r[i] = -1;
      if (rank == root) for (int i = 0; i < n; ++i) r[root * n + i] = val(root, i);
      MPI_Gather(rank == root ? MPI_IN_PLACE : s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
      if (rank == root)
        for (int q = 0; q < size; ++q)
          for (int i = 0; i < n; ++i) CHECK(r[q * n + i] == val(q, i), "gather in place", q, i);
      /* scatter back: rank q gets block q */
      for (int i = 0; i < n; ++i) s[i] = -1;
      MPI_Scatter(r, n, MPI_INT, s, n, MPI_INT, root, MPI_COMM_WORLD);
      for (int i = 0; i < n; ++i) CHECK(s[i] == val(rank, i), "scatter", root, i);
      if (rank == root) for (int i = 0; i < n; ++i) r[root * n + i] = -5;
      MPI_Scatter(r, n, MPI_INT, rank == root ? MPI_IN_PLACE : s, n, MPI_INT, root, MPI_COMM_WORLD);
      for (int i = 0; i < n; ++i) CHECK(s[i] == val(rank, i), "scatter in place", root, i);
      if (rank == root) for (int i = 0; i < n; ++i) CHECK(r[root * n + i] == -5, "scatter in place root block", root, i);
      free(s);
      free(r);
    }
  /* different types, same signature: 2n ints sent, n vec elements received (and back) */
  for (int root = 0; root < size; ++root) {
    int n = 300, *s = ints(2 * n, 0), *r = ints((long long)3 * n * size, GAP);
    for (int i = 0; i < 2 * n; ++i) s[i] = val(rank, i);
    MPI_Gather(s, 2 * n, MPI_INT, r, n, vec, root, MPI_COMM_WORLD);
    if (rank == root)
      for (int q = 0; q < size; ++q)
        for (int e = 0; e < n; ++e) vec_check(r, q * n + e, val(q, 2 * e), val(q, 2 * e + 1), "gather vec");
    for (int i = 0; i < 2 * n; ++i) s[i] = -1;
    MPI_Scatter(r, n, vec, s, 2 * n, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < 2 * n; ++i) CHECK(s[i] == val(rank, i), "scatter vec", root, i);
    free(s);
    free(r);
  }
}

/* vector forms: rank q owns cnt(q) = q % 3 + base elements, laid out in reverse rank
 * order with a gap of 2 elements between blocks */
static int cnt(int q, int base) { return q % 3 + base; }
static void layout(int base, int *cnts, int *displs, int *total) {
  int pos = 0;
  for (int q = size - 1; q >= 0; --q) {
    cnts[q] = cnt(q, base);
    displs[q] = pos;
    pos += cnts[q] + 2;
  }
  *total = pos;
}

static void test_vector_forms(void) {
  int *cn = malloc(size * sizeof(int)), *dp = malloc(size * sizeof(int)), total;
  for (int base = 0; base <= 4; base += 4) {
    layout(base, cn, dp, &total);
    for (int root = 0; root < size; ++root) {
      int mine = cnt(rank, base), *s = ints(mine, 0), *r = ints(total, -1);
      for (int i = 0; i < mine; ++i) s[i] = val(rank, i);
      MPI_Gatherv(s, mine, MPI_INT, r, cn, dp, MPI_INT, root, MPI_COMM_WORLD);
      if (rank == root) {
        for (int q = 0; q < size; ++q)
          for (int i = 0; i < cn[q]; ++i) CHECK(r[dp[q] + i] == val(q, i), "gatherv", q, i);
        for (int q = 0; q < size; ++q) CHECK(r[dp[q] + cn[q]] == -1, "gatherv gap", q, 0);
      }
      for (int i = 0; i < total; ++i) r[i] = -1;
      if (rank == root) for (int i = 0; i < mine; ++i) r[dp[root] + i] = val(root, i);
      MPI_Gatherv(rank == root ? MPI_IN_PLACE : s, mine, MPI_INT, r, cn, dp, MPI_INT, root, MPI_COMM_WORLD);
      if (rank == root)
        for (int q = 0; q < size; ++q)
          for (int i = 0; i < cn[q]; ++i) CHECK(r[dp[q] + i] == val(q, i), "gatherv in place", q, i);
      for (int i = 0; i < mine; ++i) s[i] = -1;
      MPI_Scatterv(r, cn, dp, MPI_INT, s, mine, MPI_INT, root, MPI_COMM_WORLD);
      for (int i = 0; i < mine; ++i) CHECK(s[i] == val(rank, i), "scatterv", root, i);
      MPI_Scatterv(r, cn, dp, MPI_INT, rank == root ? MPI_IN_PLACE : s, mine, MPI_INT, root, MPI_COMM_WORLD);
      for (int i = 0; i < mine; ++i) CHECK(s[i] == val(rank, i), "scatterv in place", root, i);
      free(s);
      free(r);
    }
    int mine = cnt(rank, base), *s = ints(mine, 0), *r = ints(total, -1);
    for (int i = 0; i < mine; ++i) s[i] = val(rank, i);
    MPI_Allgatherv(s, mine, MPI_INT, r, cn, dp, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; ++q) {
      for (int i = 0; i < cn[q]; ++i) CHECK(r[dp[q] + i] == val(q, i), "allgatherv", q, i);
      CHECK(r[dp[q] + cn[q]] == -1, "allgatherv gap", q, 0);
    }
    for (int i = 0; i < total; ++i) r[i] = -1;
    for (int i = 0; i < mine; ++i) r[dp[rank] + i] = val(rank, i);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, cn, dp, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < cn[q]; ++i) CHECK(r[dp[q] + i] == val(q, i), "allgatherv in place", q, i);
    /* derived receive type: block q of cn[q] vec elements at dp[q] extents */
    int *rv = ints((long long)3 * total, GAP), *s2 = ints(2 * mine, 0);
    for (int i = 0; i < 2 * mine; ++i) s2[i] = val(rank, i);
    MPI_Allgatherv(s2, 2 * mine, MPI_INT, rv, cn, dp, vec, MPI_COMM_WORLD);
    for (int q = 0; q < size; ++q)
      for (int e = 0; e < cn[q]; ++e) vec_check(rv, dp[q] + e, val(q, 2 * e), val(q, 2 * e + 1), "allgatherv vec");
    free(rv);
    free(s2);
    free(s);
    free(r);
  }
  free(cn);
  free(dp);
}

static void test_allgather_alltoall(void) {
  static const int ac[] = {0, 1, 5, 2000};
  for (int c = 0; c < NC; ++c) {
    int n = ac[c];
    int *s = ints((long long)n * size, 0), *r = ints((long long)n * size, -1);
    for (int i = 0; i < n; ++i) s[i] = val(rank, i);
    MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < n; ++i) CHECK(r[q * n + i] == val(q, i), "allgather", q, i);
    for (int i = 0; i < n * size; ++i) r[i] = -1;
    for (int i = 0; i < n; ++i) r[rank * n + i] = val(rank, i);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < n; ++i) CHECK(r[q * n + i] == val(q, i), "allgather in place", q, i);
    /* alltoall: block d of rank q holds val(q, d * n + i) */
    for (int d = 0; d < size; ++d)
      for (int i = 0; i < n; ++i) s[d * n + i] = val(rank, d * n + i);
    MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < n; ++i) CHECK(r[q * n + i] == val(q, rank * n + i), "alltoall", q, i);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s, n, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < n; ++i) CHECK(s[q * n + i] == val(q, rank * n + i), "alltoall in place", q, i);
    free(s);
    free(r);
  }
  int n = 40, *s = ints((long long)2 * n * size, 0), *r = ints((long long)3 * n * size, GAP);
  for (int i = 0; i < 2 * n; ++i) s[i] = val(rank, i);
  MPI_Allgather(s, 2 * n, MPI_INT, r, n, vec, MPI_COMM_WORLD);
  for (int q = 0; q < size; ++q)
    for (int e = 0; e < n; ++e) vec_check(r, q * n + e, val(q, 2 * e), val(q, 2 * e + 1), "allgather vec");
  for (int i = 0; i < 2 * n * size; ++i) s[i] = val(rank, i);
  for (int i = 0; i < 3 * n * size; ++i) r[i] = GAP;
  MPI_Alltoall(s, 2 * n, MPI_INT, r, n, vec, MPI_COMM_WORLD);
  for (int q = 0; q < size; ++q)
    for (int e = 0; e < n; ++e)
      vec_check(r, q * n + e, val(q, rank * 2 * n + 2 * e), val(q, rank * 2 * n + 2 * e + 1), "alltoall vec");
  free(s);
  free(r);
}

/* alltoallv: rank q sends (q + d) % 3 + base elements to d (symmetric, so the in-place
 * form works); send blocks packed in rank order, receive blocks reversed with gaps */
static void test_alltoallv(void) {
  int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
  int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
  for (int base = 0; base <= 4; base += 4) {
    int spos = 0, rpos = 0;
    for (int d = 0; d < size; ++d) { sc[d] = (rank + d) % 3 + base; sd[d] = spos; spos += sc[d]; }
    for (int q = size - 1; q >= 0; --q) { rc[q] = (rank + q) % 3 + base; rd[q] = rpos; rpos += rc[q] + 1; }
    int *s = ints(spos, 0), *r = ints(rpos, -1);
    for (int d = 0; d < size; ++d)
      for (int i = 0; i < sc[d]; ++i) s[sd[d] + i] = val(rank, d * 100 + i);
    MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; ++q) {
      for (int i = 0; i < rc[q]; ++i) CHECK(r[rd[q] + i] == val(q, rank * 100 + i), "alltoallv", q, i);
      CHECK(r[rd[q] + rc[q]] == -1, "alltoallv gap", q, 0);
    }
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < rc[q]; ++i) r[rd[q] + i] = val(rank, q * 100 + i);
    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < rc[q]; ++i) CHECK(r[rd[q] + i] == val(q, rank * 100 + i), "alltoallv in place", q, i);
    free(s);
    free(r);
  }
  free(sc);
  free(sd);
  free(rc);
  free(rd);
}

static void expect_class(int rc, int cls, const char *what) {
  int got = -1;
  if (rc == MPI_SUCCESS) fail(what, rc, cls);
  MPI_Error_class(rc, &got);
  CHECK(got == cls, what, got, cls);
}

/* Every rank makes the same bad call, so none goes on into a collective alone. */
static void test_errors(void) {
  int x[2] = {1, 2}, y[2];
  float f = 1, g;
  MPI_Request q = MPI_REQUEST_NULL;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  expect_class(MPI_Bcast(x, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "bcast count -1");
  expect_class(MPI_Bcast(x, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT, "bcast root == size");
  expect_class(MPI_Reduce(x, y, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD), MPI_ERR_ROOT, "reduce root -1");
  expect_class(MPI_Bcast(x, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "bcast null type");
  expect_class(MPI_Allreduce(x, y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP, "allreduce null op");
  expect_class(MPI_Allreduce(&f, &g, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP, "allreduce band float");
  expect_class(MPI_Gather(x, -2, MPI_INT, y, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "gather sendcount -2");
  expect_class(MPI_Ibarrier(MPI_COMM_NULL, &q), MPI_ERR_COMM, "ibarrier on MPI_COMM_NULL");
  expect_class(MPI_Iallreduce(x, y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q), MPI_ERR_COUNT, "iallreduce count -1");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Barrier(MPI_COMM_WORLD);
  test_bcast();
  test_gather_scatter();
  test_vector_forms();
  test_allgather_alltoall();
  test_alltoallv();
  test_errors();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Type_free(&vec);
  if (rank == 0) printf("OK conf_coll\n");
  MPI_Finalize();
  return 0;
}
