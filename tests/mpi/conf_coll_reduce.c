/* ranks: 1 2 3 4 8 */
/* Blocking reductions: reduce, allreduce, reduce_scatter(_block), scan, exscan with
 * counts 0..20000, every root, MPI_IN_PLACE where MPI allows it, int/double, a user op
 * on a derived type with gaps (which must stay untouched), MINLOC/MAXLOC on a pair type
 * with ties, and a non-commutative user op on a 2-int type (rank order kept, elements
 * never split); results compared with values computed locally. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static MPI_Datatype vec; /* 2 ints at offsets 0 and 2 ints: extent 3 ints, gap in between */
static MPI_Op vsum;      /* sum over vec elements (predefined ops take predefined types only) */

static void vec_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  const int *a = in;
  int *b = inout;
  for (int e = 0; e < *len; ++e) {
    b[3 * e] += a[3 * e];
    b[3 * e + 2] += a[3 * e + 2];
  }
  (void)type;
}

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
static int sum_upto(int nranks, int i) { /* sum of val(r, i) for r < nranks */
  return nranks * (i * 7 + 1) + 100003 * (nranks * (nranks - 1) / 2);
}
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

static void test_reduce(void) {
  for (int root = 0; root < size; ++root)
    for (int c = 0; c < NC; ++c) {
      int n = counts[c];
      int *s = ints(n, 0), *r = ints(n, -1);
      for (int i = 0; i < n; ++i) s[i] = val(rank, i);
      MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
      if (rank == root) for (int i = 0; i < n; ++i) CHECK(r[i] == sum_upto(size, i), "reduce sum", root, i);
      /* in place at the root */
      for (int i = 0; i < n; ++i) r[i] = val(rank, i);
      MPI_Reduce(rank == root ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
      if (rank == root) for (int i = 0; i < n; ++i) CHECK(r[i] == sum_upto(size, i), "reduce in place", root, i);
      free(s);
      free(r);
    }
  for (int root = 0; root < size; ++root) {
    double d[4], m[4];
    for (int i = 0; i < 4; ++i) d[i] = (double)((rank + i) % size) + 0.5;
    MPI_Reduce(d, m, 4, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD);
    if (rank == root) for (int i = 0; i < 4; ++i) CHECK(m[i] == size - 0.5, "reduce max double", root, i);
    int n = 700, *s = ints(3 * n, GAP), *r = ints(3 * n, GAP);
    for (int e = 0; e < n; ++e) vec_put(s, e, val(rank, 2 * e), val(rank, 2 * e + 1));
    MPI_Reduce(s, r, n, vec, vsum, root, MPI_COMM_WORLD);
    if (rank == root)
      for (int e = 0; e < n; ++e) vec_check(r, e, sum_upto(size, 2 * e), sum_upto(size, 2 * e + 1), "reduce vec");
    free(s);
    free(r);
  }
}

static void test_allreduce(void) {
  for (int c = 0; c < NC; ++c) {
    int n = counts[c];
    int *s = ints(n, 0), *r = ints(n, -1);
    for (int i = 0; i < n; ++i) s[i] = val(rank, i);
    MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) CHECK(r[i] == sum_upto(size, i), "allreduce sum", n, i);
    MPI_Allreduce(MPI_IN_PLACE, s, n, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) CHECK(s[i] == val(0, i), "allreduce min in place", n, i);
    free(s);
    free(r);
  }
  double d = rank + 0.25, dm;
  MPI_Allreduce(&d, &dm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(dm == size - 0.75, "allreduce max double", 0, 0);
  int n = 3000, *s = ints(3 * n, GAP), *r = ints(3 * n, GAP);
  for (int e = 0; e < n; ++e) vec_put(s, e, val(rank, 2 * e), val(rank, 2 * e + 1));
  MPI_Allreduce(s, r, n, vec, vsum, MPI_COMM_WORLD);
  for (int e = 0; e < n; ++e) vec_check(r, e, sum_upto(size, 2 * e), sum_upto(size, 2 * e + 1), "allreduce vec");
  MPI_Allreduce(MPI_IN_PLACE, s, n, vec, vsum, MPI_COMM_WORLD);
  for (int e = 0; e < n; ++e) vec_check(s, e, sum_upto(size, 2 * e), sum_upto(size, 2 * e + 1), "allreduce vec in place");
  free(s);
  free(r);
  /* MAXLOC / MINLOC on a pair type, large enough for the engine's splitting algorithms;
   * every fifth element ties (all ranks equal): the lowest rank wins. */
  struct { double v; int i; } *p = malloc(3000 * sizeof(*p)), *q = malloc(3000 * sizeof(*q));
  for (int k = 0; k < 3000; ++k) { p[k].v = (k % 5 == 0) ? 1.0 : (double)((k + rank) % size); p[k].i = rank; }
  MPI_Allreduce(p, q, 3000, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  for (int k = 0; k < 3000; ++k) {
    int who = k % 5 == 0 ? 0 : ((size - 1 - k) % size + size) % size;
    double best = k % 5 == 0 ? 1.0 : size - 1;
    CHECK(q[k].v == best && q[k].i == who, "allreduce maxloc", k, q[k].i);
  }
  MPI_Allreduce(p, q, 3000, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  for (int k = 0; k < 3000; ++k) {
    int who = k % 5 == 0 ? 0 : ((-k) % size + size) % size;
    double best = k % 5 == 0 ? 1.0 : 0.0;
    CHECK(q[k].v == best && q[k].i == who, "allreduce minloc", k, q[k].i);
  }
  free(p);
  free(q);
}

static void test_reduce_scatter_scan(void) {
  int *rc = malloc(size * sizeof(int));
  for (int base = 0; base <= 600; base += 300) {
    int total = 0, off = 0;
    for (int q = 0; q < size; ++q) { rc[q] = q % 3 + base; total += rc[q]; }
    for (int q = 0; q < rank; ++q) off += rc[q];
    int *s = ints(total, 0), *r = ints(total, -1);
    for (int i = 0; i < total; ++i) s[i] = val(rank, i);
    MPI_Reduce_scatter(s, r, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < rc[rank]; ++i) CHECK(r[i] == sum_upto(size, off + i), "reduce_scatter", base, i);
    MPI_Reduce_scatter(MPI_IN_PLACE, s, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < rc[rank]; ++i) CHECK(s[i] == sum_upto(size, off + i), "reduce_scatter in place", base, i);
    free(s);
    free(r);
  }
  free(rc);
  for (int c = 0; c < NC; ++c) {
    int n = counts[c] > 2000 ? 2000 : counts[c];
    int *s = ints((long long)n * size, 0), *r = ints(n, -1);
    for (int i = 0; i < n * size; ++i) s[i] = val(rank, i);
    MPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) CHECK(r[i] == sum_upto(size, rank * n + i), "reduce_scatter_block", n, i);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, s, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) CHECK(s[i] == sum_upto(size, rank * n + i), "reduce_scatter_block in place", n, i);
    free(s);
    free(r);
    /* scan / exscan */
    n = counts[c];
    s = ints(n, 0);
    r = ints(n, -1);
    for (int i = 0; i < n; ++i) s[i] = val(rank, i);
    MPI_Scan(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) CHECK(r[i] == sum_upto(rank + 1, i), "scan", n, i);
    MPI_Exscan(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0) for (int i = 0; i < n; ++i) CHECK(r[i] == sum_upto(rank, i), "exscan", n, i);
    for (int i = 0; i < n; ++i) r[i] = val(rank, i);
    MPI_Scan(MPI_IN_PLACE, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) CHECK(r[i] == sum_upto(rank + 1, i), "scan in place", n, i);
    MPI_Exscan(MPI_IN_PLACE, s, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0) for (int i = 0; i < n; ++i) CHECK(s[i] == sum_upto(rank, i), "exscan in place", n, i);
    free(s);
    free(r);
  }
  int n = 500, *s = ints(3 * n, GAP), *r = ints(3 * n, GAP);
  for (int e = 0; e < n; ++e) vec_put(s, e, val(rank, 2 * e), val(rank, 2 * e + 1));
  MPI_Scan(s, r, n, vec, vsum, MPI_COMM_WORLD);
  for (int e = 0; e < n; ++e) vec_check(r, e, sum_upto(rank + 1, 2 * e), sum_upto(rank + 1, 2 * e + 1), "scan vec");
  free(s);
  free(r);
}

/* A non-commutative user op on a 2-int type: (a, b) is the map x -> a*x + b and the
 * reduction composes the maps in rank order (lower rank applied first), so any
 * reordering or splitting of an element shows. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *type) {
  const int *f = in;
  int *g = inout;
  for (int e = 0; e < *len; ++e) {
    g[2 * e + 1] = f[2 * e + 1] * g[2 * e] + g[2 * e + 1];
    g[2 * e] = f[2 * e] * g[2 * e];
  }
  (void)type;
}
static int map_a(int r, int e) { return 1 + (r + e) % 2; }
static int map_b(int r, int e) { return r - e % 3; }
/* The composition of ranks lo..hi-1 for element e. */
static void fold(int lo, int hi, int e, int *a, int *b) {
  *a = 1;
  *b = 0;
  for (int r = lo; r < hi; ++r) {
    *b = map_a(r, e) * *b + map_b(r, e);
    *a = map_a(r, e) * *a;
  }
}

static void test_noncommutative(void) {
  MPI_Datatype pair;
  MPI_Op op;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Op_create(compose, 0, &op);
  int n = 3000, a, b;
  int *s = ints(2 * n, 0), *r = ints(2 * n, 0);
  for (int e = 0; e < n; ++e) { s[2 * e] = map_a(rank, e); s[2 * e + 1] = map_b(rank, e); }
  MPI_Allreduce(s, r, n, pair, op, MPI_COMM_WORLD);
  for (int e = 0; e < n; ++e) {
    fold(0, size, e, &a, &b);
    CHECK(r[2 * e] == a && r[2 * e + 1] == b, "non-commutative allreduce", e, r[2 * e + 1]);
  }
  for (int root = 0; root < size; ++root) {
    MPI_Reduce(s, r, n, pair, op, root, MPI_COMM_WORLD);
    if (rank == root)
      for (int e = 0; e < n; ++e) {
        fold(0, size, e, &a, &b);
        CHECK(r[2 * e] == a && r[2 * e + 1] == b, "non-commutative reduce", root, e);
      }
  }
  MPI_Scan(s, r, n, pair, op, MPI_COMM_WORLD);
  for (int e = 0; e < n; ++e) {
    fold(0, rank + 1, e, &a, &b);
    CHECK(r[2 * e] == a && r[2 * e + 1] == b, "non-commutative scan", e, r[2 * e + 1]);
  }
  MPI_Exscan(s, r, n, pair, op, MPI_COMM_WORLD);
  if (rank > 0)
    for (int e = 0; e < n; ++e) {
      fold(0, rank, e, &a, &b);
      CHECK(r[2 * e] == a && r[2 * e + 1] == b, "non-commutative exscan", e, r[2 * e + 1]);
    }
  /* reduce_scatter_block: element e of block q is element q * m + e of the input */
  int m = 700, *big = ints(2 * m * size, 0);
  for (int e = 0; e < m * size; ++e) { big[2 * e] = map_a(rank, e); big[2 * e + 1] = map_b(rank, e); }
  MPI_Reduce_scatter_block(big, r, m, pair, op, MPI_COMM_WORLD);
  for (int e = 0; e < m; ++e) {
    fold(0, size, rank * m + e, &a, &b);
    CHECK(r[2 * e] == a && r[2 * e + 1] == b, "non-commutative reduce_scatter_block", e, r[2 * e + 1]);
  }
  free(big);
  free(s);
  free(r);
  MPI_Op_free(&op);
  MPI_Type_free(&pair);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Op_create(vec_sum, 1, &vsum);
  test_reduce();
  test_allreduce();
  test_reduce_scatter_scan();
  test_noncommutative();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Type_free(&vec);
  MPI_Op_free(&vsum);
  if (rank == 0) printf("OK conf_coll_reduce\n");
  MPI_Finalize();
  return 0;
}
