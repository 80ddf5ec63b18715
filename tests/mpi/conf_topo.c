/* ranks: 1 2 3 4 6 8 */
/* Process topologies: MPI_Dims_create, Cartesian communicators (get, rank, coords,
 * shift with periodic and non-periodic dimensions, sub, map, fewer processes than the
 * communicator), graph and distributed graph communicators (both constructors, weights
 * and MPI_UNWEIGHTED), MPI_Topo_test, the topology surviving MPI_Comm_dup, and the
 * errors of bad arguments under MPI_ERRORS_RETURN. */
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

static int mod(int a, int n) { return ((a % n) + n) % n; }

/* The error class of a call that must fail; interlace's classes are checked exactly,
 * other MPIs only have to fail. */
static void expect_error(int rc, int cls, const char *what) {
  int got = MPI_SUCCESS;
  CHECK(rc != MPI_SUCCESS, what, rc, cls);
  MPI_Error_class(rc, &got);
#ifdef INTERLACE_MPI
  CHECK(got == cls, what, got, cls);
#else
  (void)cls;
#endif
}

static void dims_create(void) {
  int d2[2] = {0, 0}, d3[3] = {0, 0, 0}, fixed[3] = {0, 3, 0}, one[3] = {0, 0, 0}, p[2] = {0, 0};
  MPI_Dims_create(12, 2, d2);
  CHECK(d2[0] == 4 && d2[1] == 3, "Dims_create(12, 2)", d2[0], d2[1]);
  MPI_Dims_create(8, 3, d3);
  CHECK(d3[0] == 2 && d3[1] == 2 && d3[2] == 2, "Dims_create(8, 3)", d3[0], d3[2]);
  MPI_Dims_create(12, 3, fixed);
  CHECK(fixed[0] == 2 && fixed[1] == 3 && fixed[2] == 2, "Dims_create(12, {0,3,0})", fixed[0], fixed[2]);
  MPI_Dims_create(1, 3, one);
  CHECK(one[0] == 1 && one[1] == 1 && one[2] == 1, "Dims_create(1, 3)", one[0], one[2]);
  MPI_Dims_create(7, 2, p);
  CHECK(p[0] == 7 && p[1] == 1, "Dims_create(7, 2)", p[0], p[1]);
#ifdef INTERLACE_MPI /* the most balanced grid; Open MPI 4.1 answers 12 x 6 */
  int d72[2] = {0, 0};
  MPI_Dims_create(72, 2, d72);
  CHECK(d72[0] == 9 && d72[1] == 8, "Dims_create(72, 2)", d72[0], d72[1]);
#endif
  int bad[2] = {3, 0};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* calls without a communicator report there */
  expect_error(MPI_Dims_create(10, 2, bad), MPI_ERR_DIMS, "Dims_create(10, {3,0}) must fail");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void cartesian(void) {
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  CHECK(cart != MPI_COMM_NULL, "every rank is in a grid of all ranks", 0, 0);
  int st, nd, r, gd[2], gp[2], gc[2];
  MPI_Topo_test(cart, &st);
  CHECK(st == MPI_CART, "Topo_test of a Cartesian communicator", st, MPI_CART);
  MPI_Cartdim_get(cart, &nd);
  CHECK(nd == 2, "Cartdim_get", nd, 2);
  MPI_Comm_rank(cart, &r);
  CHECK(r == rank, "no reordering of ranks", r, rank);
  MPI_Cart_get(cart, 2, gd, gp, gc);
  CHECK(gd[0] == dims[0] && gd[1] == dims[1], "Cart_get dims", gd[0], gd[1]);
  CHECK(gp[0] == 1 && gp[1] == 0, "Cart_get periods", gp[0], gp[1]);
  CHECK(gc[0] == rank / dims[1] && gc[1] == rank % dims[1], "Cart_get coords (row-major)", gc[0], gc[1]);
  for (int q = 0; q < size; ++q) {
    int c[2], back;
    MPI_Cart_coords(cart, q, 2, c);
    CHECK(c[0] == q / dims[1] && c[1] == q % dims[1], "Cart_coords", q, c[0]);
    MPI_Cart_rank(cart, c, &back);
    CHECK(back == q, "Cart_rank of Cart_coords", back, q);
  }
  int wrapped[2] = {gc[0] + dims[0], gc[1]}, back;
  MPI_Cart_rank(cart, wrapped, &back);
  CHECK(back == rank, "Cart_rank wraps a periodic coordinate", back, rank);
  int src, dst;
  MPI_Cart_shift(cart, 0, 1, &src, &dst);
  CHECK(src == mod(gc[0] - 1, dims[0]) * dims[1] + gc[1], "shift -1 in the periodic dimension", src, rank);
  CHECK(dst == mod(gc[0] + 1, dims[0]) * dims[1] + gc[1], "shift +1 in the periodic dimension", dst, rank);
  MPI_Cart_shift(cart, 1, 1, &src, &dst);
  CHECK(src == (gc[1] == 0 ? MPI_PROC_NULL : rank - 1), "shift -1 in the non-periodic dimension", src, rank);
  CHECK(dst == (gc[1] == dims[1] - 1 ? MPI_PROC_NULL : rank + 1), "shift +1 in the non-periodic dimension", dst,
        rank);
  MPI_Cart_shift(cart, 1, 2, &src, &dst);
  CHECK(src == (gc[1] < 2 ? MPI_PROC_NULL : rank - 2), "shift by 2", src, rank);

  /* Rows: keep dimension 1. */
  int remain[2] = {0, 1};
  MPI_Comm row;
  MPI_Cart_sub(cart, remain, &row);
  int rs, rr, rd, rdim[1], rper[1], rco[1];
  MPI_Comm_size(row, &rs);
  MPI_Comm_rank(row, &rr);
  CHECK(rs == dims[1] && rr == gc[1], "Cart_sub size and rank", rs, rr);
  MPI_Cartdim_get(row, &rd);
  CHECK(rd == 1, "Cart_sub keeps one dimension", rd, 1);
  MPI_Cart_get(row, 1, rdim, rper, rco);
  CHECK(rdim[0] == dims[1] && rper[0] == 0 && rco[0] == gc[1], "Cart_get of the sub-grid", rdim[0], rco[0]);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row);
  int first = gc[0] * dims[1];
  CHECK(sum == dims[1] * first + dims[1] * (dims[1] - 1) / 2, "the sub-grid is this rank's row", sum, first);
  MPI_Comm_free(&row);

  /* The topology is copied by MPI_Comm_dup. */
  MPI_Comm dup;
  MPI_Comm_dup(cart, &dup);
  MPI_Topo_test(dup, &st);
  CHECK(st == MPI_CART, "Topo_test of a duplicate", st, MPI_CART);
  MPI_Cart_get(dup, 2, gd, gp, gc);
  CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1, "Cart_get of a duplicate", gd[0], gd[1]);
  MPI_Comm_free(&cart);
  MPI_Cart_shift(dup, 0, 1, &src, &dst); /* still valid after the original is freed */
  MPI_Comm_free(&dup);

  int nr;
  MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &nr);
  CHECK(nr == rank, "Cart_map", nr, rank);

  /* A grid smaller than the communicator leaves the last rank out. */
  int small[1] = {size > 1 ? size - 1 : 1}, per[1] = {0};
  MPI_Comm part;
  MPI_Cart_create(MPI_COMM_WORLD, 1, small, per, 0, &part);
  if (size > 1 && rank == size - 1) {
    CHECK(part == MPI_COMM_NULL, "a rank outside the grid gets MPI_COMM_NULL", rank, 0);
  } else {
    int ps;
    CHECK(part != MPI_COMM_NULL, "a rank in the grid gets a communicator", 0, 0);
    MPI_Comm_size(part, &ps);
    CHECK(ps == small[0], "size of the smaller grid", ps, small[0]);
    MPI_Comm_free(&part);
  }
#ifdef INTERLACE_MPI /* Open MPI 4.1 returns the rank itself here, not MPI_UNDEFINED */
  MPI_Cart_map(MPI_COMM_WORLD, 1, small, per, &nr);
  CHECK(nr == ((size > 1 && rank == size - 1) ? MPI_UNDEFINED : rank), "Cart_map outside the grid", nr, rank);
#endif
}

static void graph(void) {
  /* A ring: node i's neighbours are i-1 and i+1. */
  int *index = malloc(sizeof(int) * (size_t)size), *edges = malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < size; ++i) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = mod(i - 1, size);
    edges[2 * i + 1] = mod(i + 1, size);
  }
  MPI_Comm g;
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
  int st, nn, ne, cnt, nb[2];
  MPI_Topo_test(g, &st);
  CHECK(st == MPI_GRAPH, "Topo_test of a graph communicator", st, MPI_GRAPH);
  MPI_Graphdims_get(g, &nn, &ne);
  CHECK(nn == size && ne == 2 * size, "Graphdims_get", nn, ne);
  int *gi = malloc(sizeof(int) * (size_t)size), *ge = malloc(sizeof(int) * 2 * (size_t)size);
  MPI_Graph_get(g, size, 2 * size, gi, ge);
  for (int i = 0; i < size; ++i) CHECK(gi[i] == index[i], "Graph_get index", i, gi[i]);
  for (int i = 0; i < 2 * size; ++i) CHECK(ge[i] == edges[i], "Graph_get edges", i, ge[i]);
  for (int q = 0; q < size; ++q) {
    MPI_Graph_neighbors_count(g, q, &cnt);
    CHECK(cnt == 2, "Graph_neighbors_count", q, cnt);
    MPI_Graph_neighbors(g, q, 2, nb);
    CHECK(nb[0] == mod(q - 1, size) && nb[1] == mod(q + 1, size), "Graph_neighbors", nb[0], nb[1]);
  }
  int nr;
  MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &nr);
  CHECK(nr == rank, "Graph_map", nr, rank);
  MPI_Comm dup;
  MPI_Comm_dup(g, &dup);
  MPI_Topo_test(dup, &st);
  CHECK(st == MPI_GRAPH, "Topo_test of a duplicated graph communicator", st, MPI_GRAPH);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&g);
  free(index);
  free(edges);
  free(gi);
  free(ge);
}

static void dist_graph(void) {
  /* Adjacent: in from rank-1, out to rank+1, weighted. */
  int src = mod(rank - 1, size), dst = mod(rank + 1, size), sw = 10 + rank, dw = 20 + rank;
  MPI_Comm dg;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &sw, 1, &dst, &dw, MPI_INFO_NULL, 0, &dg);
  int st, indeg, outdeg, weighted, s[2], sws[2], d[2], dws[2];
  MPI_Topo_test(dg, &st);
  CHECK(st == MPI_DIST_GRAPH, "Topo_test of a distributed graph", st, MPI_DIST_GRAPH);
  MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
  CHECK(indeg == 1 && outdeg == 1 && weighted, "Dist_graph_neighbors_count (adjacent)", indeg, outdeg);
  MPI_Dist_graph_neighbors(dg, 1, s, sws, 1, d, dws);
  CHECK(s[0] == src && sws[0] == sw && d[0] == dst && dws[0] == dw, "Dist_graph_neighbors (adjacent)", s[0], d[0]);
  MPI_Comm_free(&dg);

  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &dg);
  MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
  CHECK(indeg == 1 && outdeg == 1 && !weighted, "MPI_UNWEIGHTED gives an unweighted graph", indeg, weighted);
  MPI_Comm_free(&dg);

  /* General constructor: rank 0 names every edge r -> r+1 and r -> r+2 (weight
   * 100 r + target); every rank then finds its two in- and two out-edges. */
  int n = rank == 0 ? size : 0;
  int *sources = malloc(sizeof(int) * (size_t)(n + 1)), *degrees = malloc(sizeof(int) * (size_t)(n + 1));
  int *dests = malloc(sizeof(int) * (size_t)(2 * n + 1)), *weights = malloc(sizeof(int) * (size_t)(2 * n + 1));
  for (int r = 0; r < n; ++r) {
    sources[r] = r;
    degrees[r] = 2;
    for (int k = 0; k < 2; ++k) {
      dests[2 * r + k] = mod(r + 1 + k, size);
      weights[2 * r + k] = 100 * r + dests[2 * r + k];
    }
  }
  MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, weights, MPI_INFO_NULL, 0, &dg);
  MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
  CHECK(indeg == 2 && outdeg == 2 && weighted, "Dist_graph_neighbors_count (general)", indeg, outdeg);
  MPI_Dist_graph_neighbors(dg, 2, s, sws, 2, d, dws);
  /* The order of the neighbours is not specified: compare as sets. */
  for (int k = 0; k < 2; ++k) {
    int from = s[k], to = d[k];
    CHECK(from == mod(rank - 1, size) || from == mod(rank - 2, size), "an in-neighbour", from, rank);
    CHECK(sws[k] == 100 * from + rank, "the weight of an in-edge", sws[k], from);
    CHECK(to == mod(rank + 1, size) || to == mod(rank + 2, size), "an out-neighbour", to, rank);
    CHECK(dws[k] == 100 * rank + to, "the weight of an out-edge", dws[k], to);
  }
  CHECK(s[0] + s[1] == mod(rank - 1, size) + mod(rank - 2, size), "both in-neighbours", s[0], s[1]);
  CHECK(d[0] + d[1] == mod(rank + 1, size) + mod(rank + 2, size), "both out-neighbours", d[0], d[1]);
  MPI_Comm_free(&dg);
  free(sources);
  free(degrees);
  free(dests);
  free(weights);
}

/* Degenerate topologies: a zero-dimensional grid (one process, no neighbours), a
 * distributed graph with no edges and empty weights. */
static void degenerate(void) {
  MPI_Comm c;
  int nd = -1, r = -1, st;
  MPI_Cart_create(MPI_COMM_SELF, 0, NULL, NULL, 0, &c);
  CHECK(c != MPI_COMM_NULL, "a zero-dimensional grid has one process", 0, 0);
  MPI_Cartdim_get(c, &nd);
  CHECK(nd == 0, "Cartdim_get of a zero-dimensional grid", nd, 0);
  MPI_Cart_rank(c, NULL, &r);
  CHECK(r == 0, "Cart_rank in a zero-dimensional grid", r, 0);
  int dummy = 0, got = -5;
  MPI_Neighbor_allgather(&dummy, 1, MPI_INT, &got, 1, MPI_INT, c);
  CHECK(got == -5, "no neighbours, nothing received", got, -5);
  MPI_Comm_free(&c);
  int w, in, out;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL,
                                 0, &c);
  MPI_Topo_test(c, &st);
  MPI_Dist_graph_neighbors_count(c, &in, &out, &w);
  CHECK(st == MPI_DIST_GRAPH && in == 0 && out == 0 && w, "an empty weighted distributed graph", in, out);
  MPI_Comm_free(&c);
  MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
  MPI_Dist_graph_neighbors_count(c, &in, &out, &w);
  CHECK(in == 0 && out == 0 && !w, "a distributed graph nobody gave an edge", in, out);
  MPI_Comm_free(&c);
}

static void errors(void) {
  int st;
  MPI_Topo_test(MPI_COMM_WORLD, &st);
  CHECK(st == MPI_UNDEFINED, "Topo_test of a communicator without topology", st, MPI_UNDEFINED);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int nd, dims[1] = {size + 1}, per[1] = {0}, zero[2] = {2, 0}, per2[2] = {0, 0};
  MPI_Comm c = MPI_COMM_NULL;
  expect_error(MPI_Cartdim_get(MPI_COMM_WORLD, &nd), MPI_ERR_TOPOLOGY, "Cartdim_get without a topology");
  expect_error(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c), MPI_ERR_TOPOLOGY,
               "a grid larger than the communicator");
  expect_error(MPI_Cart_create(MPI_COMM_WORLD, 2, zero, per2, 0, &c), MPI_ERR_DIMS, "a dimension of extent 0");
  expect_error(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, per, 0, &c), MPI_ERR_DIMS, "negative ndims");
  int one[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, one, per, 0, &c);
  if (c != MPI_COMM_NULL) {
    int cnt;
#ifdef INTERLACE_MPI /* Open MPI 4.1 does not check the direction */
    int s1, d1;
    expect_error(MPI_Cart_shift(c, 1, 1, &s1, &d1), MPI_ERR_DIMS, "Cart_shift in a dimension that does not exist");
#endif
    expect_error(MPI_Graph_neighbors_count(c, 0, &cnt), MPI_ERR_TOPOLOGY, "a graph call on a Cartesian communicator");
    MPI_Comm_free(&c);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dims_create();
  cartesian();
  graph();
  dist_graph();
  degenerate();
  errors();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_topo\n");
  MPI_Finalize();
  return 0;
}
