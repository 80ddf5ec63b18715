/* ranks: 1 2 3 4 5 8 */
/* Neighbourhood collectives on Cartesian (periodic rings of every size, including 1
 * and 2 where both neighbours are the same rank, and a non-periodic grid whose border
 * blocks stay untouched), graph and distributed graph communicators: allgather(v),
 * alltoall(v/w), blocking, non-blocking and (MPI 4) persistent, restarted. */
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

enum { UNTOUCHED = -777 };
static int mod(int a, int n) { return ((a % n) + n) % n; }
/* The value rank r sends as element e of its block for neighbour j. */
static int val(int r, int j, int e) { return r * 1000 + j * 10 + e; }

/* A periodic ring: block 0 goes to rank-1, block 1 to rank+1. What the -1 neighbour
 * sent towards +1 lands in block 0, what the +1 neighbour sent towards -1 in block 1,
 * also when both neighbours are one rank (size 2) or this rank itself (size 1). */
static void ring(int mode, int rounds) {
  int dims[1] = {size}, per[1] = {1};
  MPI_Comm c;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c);
  int sbuf[4], rbuf[4];
  MPI_Request req = MPI_REQUEST_NULL;
#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
  if (mode == 2) MPI_Neighbor_alltoall_init(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, c, MPI_INFO_NULL, &req);
#endif
  for (int round = 0; round < rounds; ++round) {
    for (int j = 0; j < 2; ++j)
      for (int e = 0; e < 2; ++e) sbuf[2 * j + e] = val(rank, j, e) + round;
    for (int i = 0; i < 4; ++i) rbuf[i] = UNTOUCHED;
    if (mode == 0) {
      MPI_Neighbor_alltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, c);
    } else if (mode == 1) {
      MPI_Ineighbor_alltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, c, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    const int left = mod(rank - 1, size), right = mod(rank + 1, size);
#ifndef INTERLACE_MPI
    /* Open MPI 4.1 pairs the blocks of a rank that is both neighbours in posting order
     * (fixed later: open-mpi/ompi#7232, #14416); MPI 4.1 section 8.6 says block s of the
     * sender lands in block s^1. Only interlace is held to it here. */
    if (size < 3) continue;
#endif
    for (int e = 0; e < 2; ++e) {
      CHECK(rbuf[e] == val(left, 1, e) + round, "ring: block from -1 is what it sent towards +1", rbuf[e], mode);
      CHECK(rbuf[2 + e] == val(right, 0, e) + round, "ring: block from +1 is what it sent towards -1", rbuf[2 + e],
            mode);
    }
  }
  if (mode == 2) MPI_Request_free(&req);
  MPI_Comm_free(&c);
}

/* A non-periodic 2-D grid: the neighbour order is dimension 0 (-1, +1), then
 * dimension 1 (-1, +1); blocks of missing neighbours (MPI_PROC_NULL) stay untouched. */
static void grid(void) {
  int dims[2] = {0, 0}, per[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm c;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &c);
  int nb[4];
  MPI_Cart_shift(c, 0, 1, &nb[0], &nb[1]);
  MPI_Cart_shift(c, 1, 1, &nb[2], &nb[3]);
  int sbuf[4], rbuf[4], gbuf[4], one = val(rank, 9, 0);
  for (int j = 0; j < 4; ++j) sbuf[j] = val(rank, j, 0), rbuf[j] = UNTOUCHED, gbuf[j] = UNTOUCHED;
  MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, c);
  MPI_Neighbor_allgather(&one, 1, MPI_INT, gbuf, 1, MPI_INT, c);
  for (int i = 0; i < 4; ++i) {
    /* Neighbour i of this rank sent towards this rank its block i^1 (the opposite side). */
    const int want = nb[i] == MPI_PROC_NULL ? UNTOUCHED : val(nb[i], i ^ 1, 0);
    CHECK(rbuf[i] == want, "grid alltoall block", i, rbuf[i]);
    CHECK(gbuf[i] == (nb[i] == MPI_PROC_NULL ? UNTOUCHED : val(nb[i], 9, 0)), "grid allgather block", i, gbuf[i]);
  }
  /* alltoallv: neighbour j gets j+1 ints at displacement 4j; blocks received at 5i. */
  int vs[16], vr[20], sc[4], sd[4], rc[4], rd[4];
  for (int j = 0; j < 4; ++j) {
    sc[j] = j + 1, sd[j] = 4 * j, rc[j] = (j ^ 1) + 1, rd[j] = 5 * j;
    for (int e = 0; e < 4; ++e) vs[4 * j + e] = val(rank, j, e);
  }
  for (int i = 0; i < 20; ++i) vr[i] = UNTOUCHED;
  MPI_Neighbor_alltoallv(vs, sc, sd, MPI_INT, vr, rc, rd, MPI_INT, c);
  for (int i = 0; i < 4; ++i)
    for (int e = 0; e < 5; ++e) {
      const int want = (nb[i] == MPI_PROC_NULL || e >= rc[i]) ? UNTOUCHED : val(nb[i], i ^ 1, e);
      CHECK(vr[5 * i + e] == want, "grid alltoallv element", 5 * i + e, vr[5 * i + e]);
    }
  MPI_Comm_free(&c);
}

/* A distributed graph: out to rank+1 and rank+2, in from rank-1 and rank-2. */
static void dist_graph(void) {
  int src[2] = {mod(rank - 1, size), mod(rank - 2, size)}, dst[2] = {mod(rank + 1, size), mod(rank + 2, size)};
  MPI_Comm c;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
  int sbuf[2] = {val(rank, 0, 0), val(rank, 1, 0)}, rbuf[2], g[2];
  MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, c);
  /* rank-1 sent its block 0 (to its rank+1), rank-2 its block 1 (to its rank+2). */
  CHECK(rbuf[0] == val(src[0], 0, 0), "dist graph: block from rank-1", rbuf[0], src[0]);
  CHECK(rbuf[1] == val(src[1], 1, 0), "dist graph: block from rank-2", rbuf[1], src[1]);
  /* A duplicate has the same neighbourhood. */
  MPI_Comm d;
  MPI_Comm_dup(c, &d);
  rbuf[0] = rbuf[1] = UNTOUCHED;
  MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, d);
  CHECK(rbuf[0] == val(src[0], 0, 0) && rbuf[1] == val(src[1], 1, 0), "dist graph: alltoall on a duplicate", rbuf[0],
        rbuf[1]);
  MPI_Comm_free(&d);
  int me = val(rank, 5, 5);
  MPI_Request req;
  MPI_Ineighbor_allgather(&me, 1, MPI_INT, g, 1, MPI_INT, c, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(g[0] == val(src[0], 5, 5) && g[1] == val(src[1], 5, 5), "dist graph: allgather", g[0], g[1]);
  /* allgatherv: 1 element from rank-1 at displacement 2, 1 from rank-2 at 0. */
  int gv[3] = {UNTOUCHED, UNTOUCHED, UNTOUCHED}, rc[2] = {1, 1}, rd[2] = {2, 0};
  MPI_Neighbor_allgatherv(&me, 1, MPI_INT, gv, rc, rd, MPI_INT, c);
  CHECK(gv[2] == val(src[0], 5, 5) && gv[0] == val(src[1], 5, 5) && gv[1] == UNTOUCHED, "dist graph: allgatherv",
        gv[0], gv[2]);
  /* alltoallw: to rank+1 two ints as MPI_INT, to rank+2 one MPI_2INT-like pair type;
   * received as a contiguous pair type from rank-1 and two MPI_INTs from rank-2. */
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int ws[4] = {val(rank, 0, 0), val(rank, 0, 1), val(rank, 1, 0), val(rank, 1, 1)}, wr[4] = {0, 0, 0, 0};
  int wsc[2] = {2, 1}, wrc[2] = {1, 2};
  MPI_Aint wsd[2] = {0, 2 * sizeof(int)}, wrd[2] = {2 * sizeof(int), 0};
  MPI_Datatype wst[2] = {MPI_INT, pair}, wrt[2] = {pair, MPI_INT};
  MPI_Neighbor_alltoallw(ws, wsc, wsd, wst, wr, wrc, wrd, wrt, c);
  CHECK(wr[2] == val(src[0], 0, 0) && wr[3] == val(src[0], 0, 1), "dist graph: alltoallw from rank-1", wr[2], wr[3]);
  CHECK(wr[0] == val(src[1], 1, 0) && wr[1] == val(src[1], 1, 1), "dist graph: alltoallw from rank-2", wr[0], wr[1]);
  /* The same at MPI_BOTTOM, absolute addresses as displacements. */
  MPI_Aint bsd[2], brd[2];
  MPI_Get_address(&ws[0], &bsd[0]);
  MPI_Get_address(&ws[2], &bsd[1]);
  MPI_Get_address(&wr[2], &brd[0]);
  MPI_Get_address(&wr[0], &brd[1]);
  memset(wr, 0, sizeof(wr));
  MPI_Neighbor_alltoallw(MPI_BOTTOM, wsc, bsd, wst, MPI_BOTTOM, wrc, brd, wrt, c);
  CHECK(wr[2] == val(src[0], 0, 0) && wr[3] == val(src[0], 0, 1), "alltoallw at MPI_BOTTOM from rank-1", wr[2], wr[3]);
  CHECK(wr[0] == val(src[1], 1, 0) && wr[1] == val(src[1], 1, 1), "alltoallw at MPI_BOTTOM from rank-2", wr[0], wr[1]);
  MPI_Type_free(&pair);
  MPI_Comm_free(&c);
}

/* A graph communicator: the ring, both neighbours listed (a self loop on 1 rank). */
static void graph(void) {
  int *index = malloc(sizeof(int) * (size_t)size), *edges = malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < size; ++i) index[i] = 2 * (i + 1), edges[2 * i] = mod(i - 1, size), edges[2 * i + 1] = mod(i + 1, size);
  MPI_Comm c;
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &c);
  int me[2] = {val(rank, 1, 1), val(rank, 1, 2)}, g[4];
  MPI_Neighbor_allgather(me, 2, MPI_INT, g, 2, MPI_INT, c);
  const int l = mod(rank - 1, size), r = mod(rank + 1, size);
  CHECK(g[0] == val(l, 1, 1) && g[1] == val(l, 1, 2), "graph allgather from the left", g[0], g[1]);
  CHECK(g[2] == val(r, 1, 1) && g[3] == val(r, 1, 2), "graph allgather from the right", g[2], g[3]);
  if (size > 2) { /* with two distinct neighbours the blocks are unambiguous */
    int s[2] = {val(rank, 0, 0), val(rank, 1, 0)}, rb[2];
    MPI_Neighbor_alltoall(s, 1, MPI_INT, rb, 1, MPI_INT, c);
    CHECK(rb[0] == val(l, 1, 0) && rb[1] == val(r, 0, 0), "graph alltoall", rb[0], rb[1]);
  }
  MPI_Comm_free(&c);
  free(index);
  free(edges);
}

/* Bad calls return an error (exact classes checked under interlace). */
static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x = 0, y[8], cls = 0;
  int rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS, "a neighbour collective without a topology", rc, 0);
#ifdef INTERLACE_MPI
  CHECK(cls == MPI_ERR_TOPOLOGY, "class of a neighbour collective without a topology", cls, MPI_ERR_TOPOLOGY);
#endif
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#ifdef INTERLACE_MPI
  int dims[1] = {size}, per[1] = {1};
  MPI_Comm c;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  rc = MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, c);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_BUFFER, "MPI_IN_PLACE in a neighbour collective", rc, cls);
  rc = MPI_Neighbor_alltoall(y, -1, MPI_INT, y + 2, 1, MPI_INT, c);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COUNT, "a negative count", rc, cls);
  rc = MPI_Neighbor_alltoallv(y, NULL, NULL, MPI_INT, y + 2, NULL, NULL, MPI_INT, c);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "null count arrays", rc, cls);
  MPI_Comm_free(&c);
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ring(0, 1);
  ring(1, 2);
#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
  ring(2, 3);
#endif
  grid();
  dist_graph();
  graph();
  errors();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_neighbor\n");
  MPI_Finalize();
  return 0;
}
