/* ranks: 1 2 3 4 8 */
/* Communicators: dup (error handler inherited), split (keys reorder, MPI_UNDEFINED gives
 * MPI_COMM_NULL), create (subset, disjoint, full and reordered groups), compare (IDENT,
 * CONGRUENT, SIMILAR, UNEQUAL), group, test_inter, names, free (world and self refused
 * with MPI_ERR_COMM), and collectives and point-to-point on the new communicators. */
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

static int cmp(MPI_Comm a, MPI_Comm b) {
  int r = -1;
  MPI_Comm_compare(a, b, &r);
  return r;
}

/* The world ranks of comm's members, in comm rank order (via groups). */
static void world_ranks(MPI_Comm comm, int *out) {
  MPI_Group g, wg;
  int n;
  MPI_Comm_group(comm, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_size(g, &n);
  int *in = malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) in[i] = i;
  MPI_Group_translate_ranks(g, n, in, wg, out);
  free(in);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
}

/* Sum of the world ranks of comm's members, by allreduce on comm and by bcast from
 * its last rank, checked against `expect`. */
static void use(MPI_Comm comm, int expect, const char *what) {
  int s = 0, r, n;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, comm);
  CHECK(s == expect, what, s, expect);
  int b = r == n - 1 ? 4242 + n : -1;
  MPI_Bcast(&b, 1, MPI_INT, n - 1, comm);
  CHECK(b == 4242 + n, what, b, n);
  /* a ring exchange of world ranks on the new communicator */
  int *wr = malloc(n * sizeof(int)), got = -1;
  world_ranks(comm, wr);
  CHECK(wr[r] == rank, "own world rank in the group", wr[r], rank);
  MPI_Sendrecv(&rank, 1, MPI_INT, (r + 1) % n, 5, &got, 1, MPI_INT, (r + n - 1) % n, 5, comm, MPI_STATUS_IGNORE);
  CHECK(got == wr[(r + n - 1) % n], what, got, wr[(r + n - 1) % n]);
  free(wr);
}

static void names(void) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name", len, 0);
  MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13, "self name", len, 0);
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_set_name(d, "my duplicate");
  MPI_Comm_get_name(d, name, &len);
  CHECK(strcmp(name, "my duplicate") == 0 && len == 12, "set/get name", len, 0);
  MPI_Comm_free(&d);
  CHECK(d == MPI_COMM_NULL, "free sets MPI_COMM_NULL", 0, 0);
}

static void dup_and_compare(void) {
  MPI_Comm d, d2;
  CHECK(cmp(MPI_COMM_WORLD, MPI_COMM_WORLD) == MPI_IDENT, "world vs world", 0, 0);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Errhandler eh;
  MPI_Comm_get_errhandler(d, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "dup inherits the error handler", 0, 0);
  CHECK(cmp(MPI_COMM_WORLD, d) == MPI_CONGRUENT, "world vs dup", cmp(MPI_COMM_WORLD, d), 0);
  CHECK(cmp(d, d) == MPI_IDENT, "dup vs itself", 0, 0);
  MPI_Comm_dup(d, &d2);
  CHECK(cmp(d, d2) == MPI_CONGRUENT, "dup vs dup of dup", 0, 0);
  int flag = -1;
  MPI_Comm_test_inter(d2, &flag);
  CHECK(flag == 0, "test_inter", flag, 0);
  use(d2, size * (size - 1) / 2, "collectives on a dup");
  /* traffic on d and world stays apart: same tag, posted in crossed order */
  if (size > 1) {
    int a = -1, b = -1, x = rank, y = rank + 1000;
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Request q[4];
    MPI_Irecv(&a, 1, MPI_INT, from, 0, d, &q[0]);
    MPI_Irecv(&b, 1, MPI_INT, from, 0, MPI_COMM_WORLD, &q[1]);
    MPI_Isend(&y, 1, MPI_INT, to, 0, MPI_COMM_WORLD, &q[2]);
    MPI_Isend(&x, 1, MPI_INT, to, 0, d, &q[3]);
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    CHECK(a == from && b == from + 1000, "dup isolates traffic", a, b);
  }
  MPI_Comm_free(&d2);
  MPI_Comm_free(&d);
  /* world and self cannot be freed */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm w = MPI_COMM_WORLD, s = MPI_COMM_SELF;
  int cls = -1, rc = MPI_Comm_free(&w);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_COMM, "freeing MPI_COMM_WORLD", rc, cls);
  rc = MPI_Comm_free(&s);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_COMM, "freeing MPI_COMM_SELF", rc, cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  /* self */
  int r = -1, n = -1;
  MPI_Comm_rank(MPI_COMM_SELF, &r);
  MPI_Comm_size(MPI_COMM_SELF, &n);
  CHECK(r == 0 && n == 1, "self rank/size", r, n);
  CHECK(cmp(MPI_COMM_SELF, MPI_COMM_WORLD) == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "self vs world",
        cmp(MPI_COMM_SELF, MPI_COMM_WORLD), size);
  use(MPI_COMM_SELF, rank, "collectives on self");
}

static void split(void) {
  /* by parity, reversed order inside (key = -rank) */
  MPI_Comm half;
  int color = rank % 2;
  MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half);
  int hr, hn, expect_n = 0, expect_r = 0, sum = 0;
  for (int q = 0; q < size; ++q)
    if (q % 2 == color) {
      ++expect_n;
      sum += q;
      if (q > rank) ++expect_r;
    }
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hn);
  CHECK(hn == expect_n && hr == expect_r, "split by parity, reversed", hr, hn);
  CHECK(cmp(half, MPI_COMM_WORLD) == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "half vs world", cmp(half, MPI_COMM_WORLD), 0);
  use(half, sum, "collectives on a split");
  MPI_Comm_free(&half);
  /* one color, reversed keys: same members in another order */
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 7, size - rank, &rev);
  MPI_Comm_rank(rev, &hr);
  CHECK(hr == size - 1 - rank, "split reversed rank", hr, rank);
  CHECK(cmp(rev, MPI_COMM_WORLD) == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "reversed vs world", cmp(rev, MPI_COMM_WORLD), 0);
  use(rev, size * (size - 1) / 2, "collectives on a reversed split");
  MPI_Comm_free(&rev);
  /* equal keys keep the parent's order */
  MPI_Comm same;
  MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &same);
  CHECK(cmp(same, MPI_COMM_WORLD) == MPI_CONGRUENT, "equal keys vs world", cmp(same, MPI_COMM_WORLD), 0);
  MPI_Comm_free(&same);
  /* MPI_UNDEFINED: no communicator */
  MPI_Comm some;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 3 == 2 ? MPI_UNDEFINED : rank % 3, rank, &some);
  if (rank % 3 == 2) {
    CHECK(some == MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL", 0, 0);
  } else {
    CHECK(some != MPI_COMM_NULL, "defined color gives a communicator", 0, 0);
    int s = 0;
    for (int q = 0; q < size; ++q)
      if (q % 3 == rank % 3) s += q;
    use(some, s, "collectives on a split with undefined members");
    /* split of a split */
    MPI_Comm sub;
    MPI_Comm_split(some, 0, 0, &sub);
    CHECK(cmp(sub, some) == MPI_CONGRUENT, "split of a split", cmp(sub, some), 0);
    MPI_Comm_free(&sub);
    MPI_Comm_free(&some);
  }
}

static void create(void) {
  MPI_Group wg, evens, rev;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int ne = (size + 1) / 2, *er = malloc(size * sizeof(int)), sum = 0;
  for (int i = 0; i < ne; ++i) { er[i] = 2 * i; sum += 2 * i; }
  MPI_Group_incl(wg, ne, er, &evens);
  MPI_Comm c;
  MPI_Comm_create(MPI_COMM_WORLD, evens, &c);
  if (rank % 2) {
    CHECK(c == MPI_COMM_NULL, "create: non-member gets MPI_COMM_NULL", 0, 0);
  } else {
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    CHECK(r == rank / 2 && n == ne, "create evens", r, n);
    use(c, sum, "collectives on a created communicator");
    MPI_Comm_free(&c);
  }
  /* MPI-3: ranks pass disjoint groups (their parity's): each group gets its communicator */
  MPI_Group mine;
  int nm = 0, msum = 0;
  for (int q = rank % 2; q < size; q += 2) { er[nm++] = q; msum += q; }
  MPI_Group_incl(wg, nm, er, &mine);
  MPI_Comm_create(MPI_COMM_WORLD, mine, &c);
  CHECK(c != MPI_COMM_NULL, "create with disjoint groups", 0, 0);
  use(c, msum, "collectives on a communicator created from disjoint groups");
  MPI_Comm_free(&c);
  MPI_Group_free(&mine);
  /* the whole group: congruent with world */
  MPI_Comm_create(MPI_COMM_WORLD, wg, &c);
  CHECK(cmp(c, MPI_COMM_WORLD) == MPI_CONGRUENT, "create with the world group", cmp(c, MPI_COMM_WORLD), 0);
  MPI_Comm_free(&c);
  /* a reordered group: ranks follow the group order */
  for (int i = 0; i < size; ++i) er[i] = size - 1 - i;
  MPI_Group_incl(wg, size, er, &rev);
  MPI_Comm_create(MPI_COMM_WORLD, rev, &c);
  int r;
  MPI_Comm_rank(c, &r);
  CHECK(r == size - 1 - rank, "create with a reversed group", r, rank);
  use(c, size * (size - 1) / 2, "collectives on a reordered created communicator");
  MPI_Comm_free(&c);
  /* the empty group: nobody gets a communicator */
  MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c);
  CHECK(c == MPI_COMM_NULL, "create with MPI_GROUP_EMPTY", 0, 0);
  MPI_Group_free(&rev);
  MPI_Group_free(&evens);
  MPI_Group_free(&wg);
  free(er);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  names();
  dup_and_compare();
  split();
  create();
  /* many dup/free cycles: handles are recycled without leaking */
  for (int i = 0; i < 50; ++i) {
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    int x = 1, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, d);
    CHECK(y == size, "allreduce on a fresh dup", i, y);
    MPI_Comm_free(&d);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_comm\n");
  MPI_Finalize();
  return 0;
}
