/* ranks: 1 2 3 4 8 */
/* Non-blocking collectives: every MPI_I* form, many in flight at once on two
 * communicators (world and a duplicate, then world and an even/odd split), completed
 * with MPI_Waitall, with MPI_Test loops and with MPI_Testall; IN_PLACE forms; a derived
 * type freed while its collective is pending (results unpacked at completion). */
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

static int val(int r, int i) { return r * 100003 + i * 7 + 1; }
static int sum_upto(int nranks, int i) { return nranks * (i * 7 + 1) + 100003 * (nranks * (nranks - 1) / 2); }
static int *ints(long long n, int fill) {
  if (n < 0 || n > (1 << 26)) fail("buffer size out of range", (int)n, 0);
  int *p = malloc((size_t)(n ? n : 1) * sizeof(int));
  if (!p) fail("out of memory", (int)n, 0);
  for (long long i = 0; i < n; ++i) p[i] = fill;
  return p;
}

/* One batch of every non-blocking collective on communicators a and b (n elements
 * per block); `mode` picks how they complete: 0 Waitall, 1 Test loops, 2 Testall. */
enum { NREQ = 16 };
static void batch(MPI_Comm a, MPI_Comm b, int n, int mode) {
  int ra, sa, rb, sb;
  MPI_Comm_rank(a, &ra);
  MPI_Comm_size(a, &sa);
  MPI_Comm_rank(b, &rb);
  MPI_Comm_size(b, &sb);
  MPI_Request q[NREQ];
  int k = 0;
  /* buffers: x_in / x_out per operation */
  int *bc = ints(n, -1), *ar_in = ints(n, 0), *ar_out = ints(n, -1), *rd_in = ints(n, 0), *rd_out = ints(n, -1);
  int *ga_in = ints(n, 0), *ga_out = ints((long long)n * sb, -1), *sc_in = ints((long long)n * sa, 0), *sc_out = ints(n, -1);
  int *ag = ints((long long)n * sb, -1), *a2a_in = ints((long long)n * sa, 0), *a2a_out = ints((long long)n * sa, -1);
  int *scan_out = ints(n, -1), *ex_out = ints(n, -1), *rsb = ints((long long)n * sb, 0);
  int *rs_in = ints((long long)n * sa, 0), *rs_out = ints(n, -1);
  int *cnt_b = malloc(sb * sizeof(int)), *dsp_b = malloc(sb * sizeof(int));
  int *cnt_a = malloc(sa * sizeof(int)), *dsp_a = malloc(sa * sizeof(int));
  for (int i = 0; i < sb; ++i) { cnt_b[i] = n; dsp_b[i] = (sb - 1 - i) * n; } /* reversed blocks */
  for (int i = 0; i < sa; ++i) { cnt_a[i] = n; dsp_a[i] = (sa - 1 - i) * n; }
  int *gv_out = ints((long long)n * sb, -1), *sv_out = ints(n, -1), *agv = ints((long long)n * sb, -1);
  int *a2v_out = ints((long long)n * sa, -1);
  for (int i = 0; i < n; ++i) {
    if (ra == 0) bc[i] = val(0, i);
    ar_in[i] = rd_in[i] = ga_in[i] = val(rb, i);
    rd_in[i] = val(ra, i);
  }
  for (int i = 0; i < n * sa; ++i) {
    sc_in[i] = val(i / (n ? n : 1), i % (n ? n : 1));
    a2a_in[i] = val(ra, i);
    rs_in[i] = val(ra, i);
  }
  for (int i = 0; i < n * sb; ++i) rsb[i] = val(rb, i);
  for (int i = 0; i < n; ++i) ag[rb * n + i] = val(rb, i);
  for (int i = 0; i < n; ++i) agv[dsp_b[rb] + i] = val(rb, i);

  MPI_Ibarrier(a, &q[k++]);
  MPI_Ibcast(bc, n, MPI_INT, 0, a, &q[k++]);
  MPI_Iallreduce(ar_in, ar_out, n, MPI_INT, MPI_SUM, b, &q[k++]);
  MPI_Ireduce(rd_in, rd_out, n, MPI_INT, MPI_SUM, sa - 1, a, &q[k++]);
  MPI_Igather(ga_in, n, MPI_INT, ga_out, n, MPI_INT, 0, b, &q[k++]);
  MPI_Iscatter(sc_in, n, MPI_INT, sc_out, n, MPI_INT, sa - 1, a, &q[k++]);
  MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, n, MPI_INT, b, &q[k++]);
  MPI_Ialltoall(a2a_in, n, MPI_INT, a2a_out, n, MPI_INT, a, &q[k++]);
  MPI_Iscan(ga_in, scan_out, n, MPI_INT, MPI_SUM, b, &q[k++]);
  MPI_Iexscan(rd_in, ex_out, n, MPI_INT, MPI_SUM, a, &q[k++]);
  MPI_Ireduce_scatter_block(MPI_IN_PLACE, rsb, n, MPI_INT, MPI_SUM, b, &q[k++]);
  MPI_Ireduce_scatter(rs_in, rs_out, cnt_a, MPI_INT, MPI_SUM, a, &q[k++]);
  MPI_Igatherv(ga_in, n, MPI_INT, gv_out, cnt_b, dsp_b, MPI_INT, sb - 1, b, &q[k++]);
  MPI_Iscatterv(sc_in, cnt_a, dsp_a, MPI_INT, sv_out, n, MPI_INT, 0, a, &q[k++]);
  MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, agv, cnt_b, dsp_b, MPI_INT, b, &q[k++]);
  MPI_Ialltoallv(a2a_in, cnt_a, dsp_a, MPI_INT, a2v_out, cnt_a, dsp_a, MPI_INT, a, &q[k++]);
  if (k != NREQ) fail("request count", k, NREQ);

  if (mode == 0) {
    MPI_Status st[NREQ];
    MPI_Waitall(NREQ, q, st);
  } else if (mode == 1) {
    int left = NREQ;
    while (left > 0)
      for (int i = 0; i < NREQ; ++i) {
        if (q[i] == MPI_REQUEST_NULL) continue;
        int flag = 0;
        MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE);
        if (flag) {
          CHECK(q[i] == MPI_REQUEST_NULL, "completed request not freed", i, 0);
          --left;
        }
      }
  } else {
    int flag = 0;
    while (!flag) MPI_Testall(NREQ, q, &flag, MPI_STATUSES_IGNORE);
  }
  for (int i = 0; i < NREQ; ++i) CHECK(q[i] == MPI_REQUEST_NULL, "request not null after completion", i, mode);

  for (int i = 0; i < n; ++i) {
    CHECK(bc[i] == val(0, i), "ibcast", mode, i);
    CHECK(ar_out[i] == sum_upto(sb, i), "iallreduce", mode, i);
    if (ra == sa - 1) CHECK(rd_out[i] == sum_upto(sa, i), "ireduce", mode, i);
    CHECK(sc_out[i] == val(ra, i), "iscatter", mode, i);
    CHECK(scan_out[i] == sum_upto(rb + 1, i), "iscan", mode, i);
    if (ra > 0) CHECK(ex_out[i] == sum_upto(ra, i), "iexscan", mode, i);
    CHECK(rsb[i] == sum_upto(sb, rb * n + i), "ireduce_scatter_block in place", mode, i);
    CHECK(rs_out[i] == sum_upto(sa, ra * n + i), "ireduce_scatter", mode, i);
    CHECK(sv_out[i] == val(sa - 1 - ra, i), "iscatterv", mode, i);
  }
  for (int r = 0; r < sb; ++r)
    for (int i = 0; i < n; ++i) {
      if (rb == 0) CHECK(ga_out[r * n + i] == val(r, i), "igather", mode, i);
      CHECK(ag[r * n + i] == val(r, i), "iallgather in place", mode, i);
      if (rb == sb - 1) CHECK(gv_out[dsp_b[r] + i] == val(r, i), "igatherv", mode, i);
      CHECK(agv[dsp_b[r] + i] == val(r, i), "iallgatherv in place", mode, i);
    }
  for (int r = 0; r < sa; ++r)
    for (int i = 0; i < n; ++i) {
      CHECK(a2a_out[r * n + i] == val(r, ra * n + i), "ialltoall", mode, i);
      CHECK(a2v_out[dsp_a[r] + i] == val(r, dsp_a[ra] + i), "ialltoallv", mode, i);
    }
  free(bc); free(ar_in); free(ar_out); free(rd_in); free(rd_out); free(ga_in); free(ga_out);
  free(sc_in); free(sc_out); free(ag); free(a2a_in); free(a2a_out); free(scan_out); free(ex_out);
  free(rsb); free(rs_in); free(rs_out); free(cnt_b); free(dsp_b); free(cnt_a); free(dsp_a);
  free(gv_out); free(sv_out); free(agv); free(a2v_out);
}

/* A derived type freed right after starting: the result is still unpacked correctly. */
static void freed_type(void) {
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec); /* ints at 0, 2, 4: extent 5 ints */
  MPI_Type_commit(&vec);
  int n = 200, *b = ints((long long)5 * n, -7), *g = ints((long long)5 * n * size, -7), *s = ints(3 * n, 0);
  if (rank == 0)
    for (int e = 0; e < n; ++e)
      for (int j = 0; j < 3; ++j) b[5 * e + 2 * j] = val(0, 3 * e + j);
  for (int i = 0; i < 3 * n; ++i) s[i] = val(rank, i);
  MPI_Request q[2];
  MPI_Ibcast(b, n, vec, 0, MPI_COMM_WORLD, &q[0]);
  MPI_Iallgather(s, 3 * n, MPI_INT, g, n, vec, MPI_COMM_WORLD, &q[1]);
  MPI_Type_free(&vec);
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  for (int e = 0; e < n; ++e)
    for (int j = 0; j < 3; ++j) {
      CHECK(b[5 * e + 2 * j] == val(0, 3 * e + j), "ibcast freed vec", e, j);
      if (j < 2) CHECK(b[5 * e + 2 * j + 1] == -7, "ibcast vec gap", e, j);
    }
  for (int r = 0; r < size; ++r)
    for (int e = 0; e < n; ++e)
      for (int j = 0; j < 3; ++j) CHECK(g[5 * (r * n + e) + 2 * j] == val(r, 3 * e + j), "iallgather freed vec", r, e);
  free(b);
  free(g);
  free(s);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup, half;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half); /* reversed order inside */
  static const int ns[] = {0, 1, 6, 3000};
  for (int c = 0; c < 4; ++c) {
    batch(MPI_COMM_WORLD, dup, ns[c], 0);
    batch(half, MPI_COMM_WORLD, ns[c], 1);
    batch(dup, half, ns[c], 2);
  }
  freed_type();
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  if (rank == 0) printf("OK conf_icoll\n");
  MPI_Finalize();
  return 0;
}
