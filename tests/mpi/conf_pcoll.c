/* ranks: 1 2 3 4 8 */
/* The persistent collectives of MPI 4 (MPI_*_init of every collective): each request
 * is started several times with new input (MPI_Start and MPI_Startall, completed with
 * MPI_Wait, MPI_Waitall and MPI_Test), then freed; and the large-count `_c` forms of the
 * blocking, non-blocking and persistent collectives. Under an MPI older than 4 (Open
 * MPI 4.1) there is nothing to check and the program only prints OK. */
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

#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)

enum { N = 3, MAXR = 64 };
static int val(int r, int i, int round) { return r * 1000 + i * 10 + round; }
static int sum_val(int nranks, int i, int round) { return 1000 * nranks * (nranks - 1) / 2 + nranks * (i * 10 + round); }

/* All buffers of one round; the requests are made once and started every round. */
static int bc[N], red_s[N], red_r[N], ar_s[N], ar_r[N], g_s[N], g_r[N * MAXR], gv_r[N * MAXR], sc_s[N * MAXR],
    sc_r[N], scv_r[N], ag_r[N * MAXR], agv_r[N * MAXR], a2a_s[N * MAXR], a2a_r[N * MAXR], a2av_r[N * MAXR],
    a2aw_r[N * MAXR], rs_s[N * MAXR], rs_r[N], rsb_r[N], scan_r[N], exscan_r[N];
static int counts[MAXR], displs[MAXR], bdispls[MAXR];
static MPI_Datatype types[MAXR];

enum { NREQ = 17 };
static MPI_Request req[NREQ];

static void make_requests(void) {
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Info info = MPI_INFO_NULL;
  int k = 0;
  MPI_Barrier_init(w, info, &req[k++]);
  MPI_Bcast_init(bc, N, MPI_INT, size - 1, w, info, &req[k++]);
  MPI_Reduce_init(red_s, red_r, N, MPI_INT, MPI_SUM, 0, w, info, &req[k++]);
  MPI_Allreduce_init(ar_s, ar_r, N, MPI_INT, MPI_SUM, w, info, &req[k++]);
  MPI_Gather_init(g_s, N, MPI_INT, g_r, N, MPI_INT, 0, w, info, &req[k++]);
  MPI_Gatherv_init(g_s, N, MPI_INT, gv_r, counts, displs, MPI_INT, 0, w, info, &req[k++]);
  MPI_Scatter_init(sc_s, N, MPI_INT, sc_r, N, MPI_INT, 0, w, info, &req[k++]);
  MPI_Scatterv_init(sc_s, counts, displs, MPI_INT, scv_r, N, MPI_INT, 0, w, info, &req[k++]);
  MPI_Allgather_init(g_s, N, MPI_INT, ag_r, N, MPI_INT, w, info, &req[k++]);
  MPI_Allgatherv_init(g_s, N, MPI_INT, agv_r, counts, displs, MPI_INT, w, info, &req[k++]);
  MPI_Alltoall_init(a2a_s, N, MPI_INT, a2a_r, N, MPI_INT, w, info, &req[k++]);
  MPI_Alltoallv_init(a2a_s, counts, displs, MPI_INT, a2av_r, counts, displs, MPI_INT, w, info, &req[k++]);
  MPI_Alltoallw_init(a2a_s, counts, bdispls, types, a2aw_r, counts, bdispls, types, w, info, &req[k++]);
  MPI_Reduce_scatter_init(rs_s, rs_r, counts, MPI_INT, MPI_SUM, w, info, &req[k++]);
  MPI_Reduce_scatter_block_init(rs_s, rsb_r, N, MPI_INT, MPI_SUM, w, info, &req[k++]);
  MPI_Scan_init(ar_s, scan_r, N, MPI_INT, MPI_SUM, w, info, &req[k++]);
  MPI_Exscan_init(ar_s, exscan_r, N, MPI_INT, MPI_SUM, w, info, &req[k++]);
  if (k != NREQ) fail("request count", k, NREQ);
}

static void fill(int round) {
  for (int i = 0; i < N; ++i) {
    bc[i] = rank == size - 1 ? val(rank, i, round) : -1;
    red_s[i] = ar_s[i] = g_s[i] = val(rank, i, round);
    red_r[i] = ar_r[i] = sc_r[i] = scv_r[i] = rs_r[i] = rsb_r[i] = scan_r[i] = -1;
    exscan_r[i] = -1;
  }
  for (int j = 0; j < size * N; ++j) {
    sc_s[j] = rank == 0 ? val(j / N, j % N, round) : -1;
    a2a_s[j] = val(rank, j, round);
    rs_s[j] = val(rank, j, round);
    g_r[j] = gv_r[j] = ag_r[j] = agv_r[j] = a2a_r[j] = a2av_r[j] = a2aw_r[j] = -1;
  }
}

static void verify(int round) {
  for (int i = 0; i < N; ++i) {
    CHECK(bc[i] == val(size - 1, i, round), "Bcast_init", i, bc[i]);
    if (rank == 0) CHECK(red_r[i] == sum_val(size, i, round), "Reduce_init", i, red_r[i]);
    CHECK(ar_r[i] == sum_val(size, i, round), "Allreduce_init", i, ar_r[i]);
    CHECK(sc_r[i] == val(rank, i, round) && scv_r[i] == val(rank, i, round), "Scatter(v)_init", i, sc_r[i]);
    CHECK(scan_r[i] == sum_val(rank + 1, i, round), "Scan_init", i, scan_r[i]);
    if (rank > 0) CHECK(exscan_r[i] == sum_val(rank, i, round), "Exscan_init", i, exscan_r[i]);
    /* reduce_scatter: element rank*N+i of every rank's input, summed. */
    int want = 0;
    for (int r = 0; r < size; ++r) want += val(r, rank * N + i, round);
    CHECK(rs_r[i] == want && rsb_r[i] == want, "Reduce_scatter(_block)_init", i, rs_r[i]);
  }
  for (int j = 0; j < size * N; ++j) {
    const int from = j / N, e = j % N;
    if (rank == 0) CHECK(g_r[j] == val(from, e, round) && gv_r[j] == val(from, e, round), "Gather(v)_init", j, g_r[j]);
    CHECK(ag_r[j] == val(from, e, round) && agv_r[j] == val(from, e, round), "Allgather(v)_init", j, ag_r[j]);
    const int want = val(from, rank * N + e, round);
    CHECK(a2a_r[j] == want && a2av_r[j] == want && a2aw_r[j] == want, "Alltoall(v/w)_init", j, a2a_r[j]);
  }
}

static void persistent(void) {
  for (int j = 0; j < size; ++j) counts[j] = N, displs[j] = N * j, bdispls[j] = N * j * (int)sizeof(int), types[j] = MPI_INT;
  make_requests();
  for (int round = 0; round < 4; ++round) {
    fill(round);
    if (round % 2 == 0) {
      MPI_Startall(NREQ, req);
    } else {
      for (int k = 0; k < NREQ; ++k) MPI_Start(&req[k]);
    }
    if (round == 2) {
      int flag = 0;
      while (!flag) MPI_Testall(NREQ, req, &flag, MPI_STATUSES_IGNORE);
    } else if (round == 3) {
      for (int k = NREQ; k-- > 0;) MPI_Wait(&req[k], MPI_STATUS_IGNORE);
    } else {
      MPI_Waitall(NREQ, req, MPI_STATUSES_IGNORE);
    }
    for (int k = 0; k < NREQ; ++k) CHECK(req[k] != MPI_REQUEST_NULL, "a persistent request stays allocated", k, 0);
    verify(round);
  }
  for (int k = 0; k < NREQ; ++k) {
    MPI_Request_free(&req[k]);
    CHECK(req[k] == MPI_REQUEST_NULL, "Request_free of a persistent collective", k, 0);
  }
}

/* A derived datatype freed right after MPI_Bcast_init: the request keeps it alive. */
static void freed_type(void) {
  MPI_Datatype t;
  MPI_Type_vector(N, 1, 2, MPI_INT, &t);
  MPI_Type_commit(&t);
  int buf[2 * N];
  MPI_Request r;
  MPI_Bcast_init(buf, 1, t, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  MPI_Type_free(&t);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 2 * N; ++i) buf[i] = rank == 0 ? val(0, i, round) : -1;
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < 2 * N; ++i)
      CHECK(buf[i] == (i % 2 == 0 || rank == 0 ? val(0, i, round) : -1), "Bcast_init of a freed vector type", i, buf[i]);
  }
  MPI_Request_free(&r);
}

/* The `_c` forms: MPI_Count counts and MPI_Aint displacements. */
static void large_count(void) {
  int in[N], out[N * MAXR], v[N];
  MPI_Count cnt[MAXR];
  MPI_Aint dsp[MAXR];
  for (int j = 0; j < size; ++j) cnt[j] = N, dsp[j] = (MPI_Aint)N * j;
  for (int i = 0; i < N; ++i) in[i] = val(rank, i, 9), v[i] = rank == 0 ? val(0, i, 8) : -1;
  MPI_Bcast_c(v, (MPI_Count)N, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; i < N; ++i) CHECK(v[i] == val(0, i, 8), "Bcast_c", i, v[i]);
  MPI_Allreduce_c(in, v, (MPI_Count)N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < N; ++i) CHECK(v[i] == sum_val(size, i, 9), "Allreduce_c", i, v[i]);
  MPI_Allgatherv_c(in, (MPI_Count)N, MPI_INT, out, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < size * N; ++j) CHECK(out[j] == val(j / N, j % N, 9), "Allgatherv_c", j, out[j]);
  MPI_Request r;
  memset(out, 0, sizeof(out));
  MPI_Igatherv_c(in, (MPI_Count)N, MPI_INT, out, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  if (rank == 0)
    for (int j = 0; j < size * N; ++j) CHECK(out[j] == val(j / N, j % N, 9), "Igatherv_c", j, out[j]);
  MPI_Allreduce_init_c(in, v, (MPI_Count)N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  for (int round = 0; round < 2; ++round) {
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; ++i) CHECK(v[i] == val(size - 1, i, 9), "Allreduce_init_c", i, v[i]);
  }
  MPI_Request_free(&r);
  /* Alltoallw_c: MPI_Aint byte displacements. */
  MPI_Datatype ty[MAXR];
  for (int j = 0; j < size; ++j) dsp[j] = (MPI_Aint)(N * j * sizeof(int)), ty[j] = MPI_INT;
  int a2a[N * MAXR];
  for (int j = 0; j < size * N; ++j) a2a[j] = val(rank, j, 4), out[j] = -1;
  MPI_Alltoallw_c(a2a, cnt, dsp, ty, out, cnt, dsp, ty, MPI_COMM_WORLD);
  for (int j = 0; j < size * N; ++j) CHECK(out[j] == val(j / N, rank * N + j % N, 4), "Alltoallw_c", j, out[j]);
  /* Reduce_scatter_c: N elements per rank. */
  MPI_Reduce_scatter_c(a2a, v, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < N; ++i) {
    int want = 0;
    for (int q = 0; q < size; ++q) want += val(q, rank * N + i, 4);
    CHECK(v[i] == want, "Reduce_scatter_c", i, v[i]);
  }
  /* Neighbor_alltoallv_c on a periodic ring (3 or more ranks: distinct neighbours). */
  if (size >= 3) {
    int dims[1] = {size}, per[1] = {1}, sb[2] = {val(rank, 0, 6), val(rank, 1, 6)}, rb[2] = {-1, -1};
    MPI_Count nc[2] = {1, 1};
    MPI_Aint nd[2] = {0, 1};
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring);
    MPI_Neighbor_alltoallv_c(sb, nc, nd, MPI_INT, rb, nc, nd, MPI_INT, ring);
    CHECK(rb[0] == val((rank + size - 1) % size, 1, 6) && rb[1] == val((rank + 1) % size, 0, 6), "Neighbor_alltoallv_c",
          rb[0], rb[1]);
    MPI_Comm_free(&ring);
  }
  /* A count beyond what an int holds is refused with MPI_ERR_COUNT by interlace. */
#ifdef INTERLACE_MPI
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Bcast_c(v, (MPI_Count)1 << 40, MPI_INT, 0, MPI_COMM_WORLD), cls = 0;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COUNT, "Bcast_c of 2^40 elements", rc, cls);
  rc = MPI_Bcast_init(v, 1, MPI_INT, size, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ROOT, "Bcast_init with root = size fails at init", rc, cls);
  /* An array entry out of range is named with its index, in every form, before any
     communication (so every rank may fail alone). */
  char msg[MPI_MAX_ERROR_STRING], want[64];
  int len = 0;
  MPI_Count big[MAXR];
  MPI_Aint far[MAXR];
  for (int j = 0; j < size; ++j) big[j] = N, far[j] = (MPI_Aint)N * j;
  big[size - 1] = (MPI_Count)1 << 40;
  far[size - 1] = (MPI_Aint)1 << 40;
  snprintf(want, sizeof want, "sendcounts[%d] %lld", size - 1, (long long)big[size - 1]);
  rc = MPI_Ialltoallv_c(in, big, dsp, MPI_INT, out, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &r);
  MPI_Error_class(rc, &cls);
  MPI_Error_string(rc, msg, &len);
  CHECK(cls == MPI_ERR_COUNT && strstr(msg, want), "Ialltoallv_c names the sendcounts entry", rc, cls);
  snprintf(want, sizeof want, "recvcounts[%d] %lld", size - 1, (long long)big[size - 1]);
  rc = MPI_Allgatherv_init_c(in, (MPI_Count)N, MPI_INT, out, big, dsp, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  MPI_Error_class(rc, &cls);
  MPI_Error_string(rc, msg, &len);
  CHECK(cls == MPI_ERR_COUNT && strstr(msg, want), "Allgatherv_init_c names the recvcounts entry", rc, cls);
  snprintf(want, sizeof want, "rdispls[%d] %lld", size - 1, (long long)far[size - 1]);
  rc = MPI_Alltoallv_c(in, cnt, dsp, MPI_INT, out, cnt, far, MPI_INT, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  MPI_Error_string(rc, msg, &len);
  CHECK(cls == MPI_ERR_ARG && strstr(msg, want), "Alltoallv_c names the rdispls entry", rc, cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
}

#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
  if (size > MAXR) fail("too many ranks", size, MAXR);
  persistent();
  freed_type();
  large_count();
#endif
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_pcoll\n");
  MPI_Finalize();
  return 0;
}
