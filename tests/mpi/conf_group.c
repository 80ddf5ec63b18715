/* ranks: 1 2 3 4 8 */
/* Groups: size, rank (MPI_UNDEFINED outside), incl, excl, union, intersection,
 * difference, compare (IDENT, SIMILAR, UNEQUAL), translate_ranks (MPI_UNDEFINED for
 * absent ranks, MPI_PROC_NULL kept), free; a bad rank under MPI_ERRORS_RETURN. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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

static int gsize(MPI_Group g) {
  int n = -1;
  MPI_Group_size(g, &n);
  return n;
}
static int grank(MPI_Group g) {
  int r = -2;
  MPI_Group_rank(g, &r);
  return r;
}
static int gcmp(MPI_Group a, MPI_Group b) {
  int r = -1;
  MPI_Group_compare(a, b, &r);
  return r;
}
/* The world ranks of g's members in group order (translated into the world group). */
static void members(MPI_Group g, MPI_Group world, int *out) {
  int n = gsize(g), *in = malloc((n ? n : 1) * sizeof(int));
  for (int i = 0; i < n; ++i) in[i] = i;
  MPI_Group_translate_ranks(g, n, in, world, out);
  free(in);
}
static void expect_members(MPI_Group g, MPI_Group world, const int *want, int n, const char *what) {
  CHECK(gsize(g) == n, what, gsize(g), n);
  int *got = malloc((n ? n : 1) * sizeof(int));
  members(g, world, got);
  for (int i = 0; i < n; ++i) CHECK(got[i] == want[i], what, i, got[i]);
  int mine = MPI_UNDEFINED;
  for (int i = 0; i < n; ++i)
    if (want[i] == rank) mine = i;
  CHECK(grank(g) == mine, what, grank(g), mine);
  free(got);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world, evens, odds, rev, low, u, x, d, e;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int *all = malloc(size * sizeof(int)), *want = malloc(2 * size * sizeof(int)), *r = malloc(size * sizeof(int));
  for (int i = 0; i < size; ++i) all[i] = i;
  expect_members(world, world, all, size, "world group");
  CHECK(gcmp(world, world) == MPI_IDENT, "world vs world", 0, 0);
  CHECK(gsize(MPI_GROUP_EMPTY) == 0 && grank(MPI_GROUP_EMPTY) == MPI_UNDEFINED, "empty group", 0, 0);

  /* incl: even ranks; excl: drop the even ranks = odd ranks */
  int ne = (size + 1) / 2, no = size / 2;
  for (int i = 0; i < ne; ++i) r[i] = 2 * i;
  MPI_Group_incl(world, ne, r, &evens);
  expect_members(evens, world, r, ne, "incl evens");
  MPI_Group_excl(world, ne, r, &odds);
  for (int i = 0; i < no; ++i) want[i] = 2 * i + 1;
  expect_members(odds, world, want, no, "excl evens");
  /* incl in reverse order: same members, other order */
  for (int i = 0; i < size; ++i) r[i] = size - 1 - i;
  MPI_Group_incl(world, size, r, &rev);
  expect_members(rev, world, r, size, "incl reversed");
  CHECK(gcmp(world, rev) == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "world vs reversed", gcmp(world, rev), 0);
  CHECK(gcmp(world, evens) == (size == 1 ? MPI_IDENT : MPI_UNEQUAL), "world vs evens", gcmp(world, evens), 0);

  /* low half: ranks 0 .. size/2 (inclusive) */
  int nl = size / 2 + 1;
  if (nl > size) nl = size;
  MPI_Group_incl(world, nl, all, &low);
  /* union(odds, low): the odds in order, then the low ranks not yet in */
  int k = 0;
  for (int i = 0; i < no; ++i) want[k++] = 2 * i + 1;
  for (int i = 0; i < nl; ++i)
    if (i % 2 == 0) want[k++] = i;
  MPI_Group_union(odds, low, &u);
  expect_members(u, world, want, k, "union");
  /* intersection(rev, low): low ranks in rev's (descending) order */
  k = 0;
  for (int i = size - 1; i >= 0; --i)
    if (i < nl) want[k++] = i;
  MPI_Group_intersection(rev, low, &x);
  expect_members(x, world, want, k, "intersection");
  CHECK(gcmp(x, low) == (nl == 1 ? MPI_IDENT : MPI_SIMILAR), "intersection vs low", gcmp(x, low), 0);
  /* difference(world, low): the ranks above the low half */
  k = 0;
  for (int i = nl; i < size; ++i) want[k++] = i;
  MPI_Group_difference(world, low, &d);
  expect_members(d, world, want, k, "difference");
  /* disjoint intersection: empty, same as MPI_GROUP_EMPTY */
  MPI_Group_intersection(evens, odds, &e);
  CHECK(gsize(e) == 0 && grank(e) == MPI_UNDEFINED, "empty intersection", gsize(e), 0);
  CHECK(gcmp(e, MPI_GROUP_EMPTY) == MPI_IDENT, "empty intersection vs MPI_GROUP_EMPTY", gcmp(e, MPI_GROUP_EMPTY), 0);
  MPI_Group_free(&e);
  MPI_Group_difference(evens, world, &e);
  CHECK(gsize(e) == 0, "difference with a superset is empty", gsize(e), 0);
  MPI_Group_free(&e);

  /* translate_ranks: evens -> world, world -> evens (odd ranks absent), PROC_NULL kept */
  int t_in[3], t_out[3];
  t_in[0] = ne - 1;
  t_in[1] = MPI_PROC_NULL;
  t_in[2] = 0;
  MPI_Group_translate_ranks(evens, 3, t_in, world, t_out);
  CHECK(t_out[0] == 2 * (ne - 1) && t_out[1] == MPI_PROC_NULL && t_out[2] == 0, "translate evens -> world", t_out[0],
        t_out[1]);
  int *w2e = malloc(size * sizeof(int));
  MPI_Group_translate_ranks(world, size, all, evens, w2e);
  for (int i = 0; i < size; ++i)
    CHECK(w2e[i] == (i % 2 ? MPI_UNDEFINED : i / 2), "translate world -> evens", i, w2e[i]);
  MPI_Group_translate_ranks(world, size, all, rev, w2e);
  for (int i = 0; i < size; ++i) CHECK(w2e[i] == size - 1 - i, "translate world -> reversed", i, w2e[i]);
  free(w2e);

  /* a communicator's group matches the ranks of a split */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Group hg;
  MPI_Comm_group(half, &hg);
  CHECK(gcmp(hg, rank % 2 ? odds : evens) == MPI_IDENT, "split group vs incl/excl", gcmp(hg, rank % 2 ? odds : evens), 0);
  MPI_Group_free(&hg);
  MPI_Comm_free(&half);

  /* errors under MPI_ERRORS_RETURN: an out-of-range rank */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Group bad = MPI_GROUP_NULL;
  int cls = -1, badr[2] = {size, 0};
  int rc = MPI_Group_incl(world, 1, badr, &bad);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_RANK, "incl with rank == size", rc, cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  MPI_Group *gs[] = {&evens, &odds, &rev, &low, &u, &x, &d, &world};
  for (int i = 0; i < 8; ++i) {
    MPI_Group_free(gs[i]);
    CHECK(*gs[i] == MPI_GROUP_NULL, "free sets MPI_GROUP_NULL", i, 0);
  }
  free(all);
  free(want);
  free(r);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_group\n");
  MPI_Finalize();
  return 0;
}
