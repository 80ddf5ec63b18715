/* ranks: 1 2 3 4 5 */
/* Communicator creation beyond dup/split: Group_range_incl/excl (and their errors),
 * Comm_create_group (collective over the group only; MPI_COMM_NULL outside it),
 * Comm_idup, Comm_dup_with_info, Comm_idup_with_info (attributes copied by their copy
 * callbacks, deleted on free), Comm_split_type (MPI_COMM_TYPE_SHARED; MPI_UNDEFINED;
 * HW_GUIDED by info, reported back by Comm_get_info; HW_UNGUIDED gives a strictly
 * smaller communicator or MPI_COMM_NULL), and, where the library declares MPI 4,
 * Comm_create_from_group and Intercomm_create_from_groups. */
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

static int deletes;
static int count_delete(MPI_Comm c, int k, void *v, void *x) {
  (void)c, (void)k, (void)v, (void)x;
  ++deletes;
  return MPI_SUCCESS;
}

static void expect_world_ranks(MPI_Group g, MPI_Group wg, const int *want, int n, const char *what) {
  int gs = -1;
  MPI_Group_size(g, &gs);
  CHECK(gs == n, what, gs, n);
  for (int i = 0; i < n; ++i) {
    int w = -1;
    MPI_Group_translate_ranks(g, 1, &i, wg, &w);
    CHECK(w == want[i], what, i, w);
  }
}

static void check_ranges(void) {
  MPI_Group wg, g;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int want[64], n = 0;
  int evens[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(wg, 1, evens, &g);
  for (int r = 0; r < size; r += 2) want[n++] = r;
  expect_world_ranks(g, wg, want, n, "range_incl evens");
  MPI_Group_free(&g);
  int back[1][3] = {{size - 1, 0, -1}};
  MPI_Group_range_incl(wg, 1, back, &g);
  n = 0;
  for (int r = size - 1; r >= 0; --r) want[n++] = r;
  expect_world_ranks(g, wg, want, n, "range_incl reversed");
  MPI_Group_free(&g);
  MPI_Group_range_excl(wg, 1, evens, &g);
  n = 0;
  for (int r = 1; r < size; r += 2) want[n++] = r;
  if (n == 0) {
    int gs = -1;
    MPI_Group_size(g, &gs);
    CHECK(gs == 0, "range_excl of everything is empty", gs, 0);
  } else {
    expect_world_ranks(g, wg, want, n, "range_excl evens");
  }
  MPI_Group_free(&g);
  if (size >= 3) { /* two ranges: (last, last) and (0, 1) */
    int two[2][3] = {{size - 1, size - 1, 1}, {0, 1, 1}};
    int w3[3] = {size - 1, 0, 1};
    MPI_Group_range_incl(wg, 2, two, &g);
    expect_world_ranks(g, wg, w3, 3, "range_incl two ranges");
    MPI_Group_free(&g);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int zero[1][3] = {{0, size - 1, 0}}, out[1][3] = {{0, size, 1}};
  CHECK(MPI_Group_range_incl(wg, 1, zero, &g) != MPI_SUCCESS, "stride 0 is an error", 0, 0);
  CHECK(MPI_Group_range_excl(wg, 1, out, &g) != MPI_SUCCESS, "a rank past the group is an error", size, 0);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Group_free(&wg);
}

static void check_create_group(void) {
  MPI_Group wg, g;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int mine[1][3] = {{rank % 2, size - 1 - (size - 1 - rank % 2) % 2, 2}};  /* my parity */
  MPI_Group_range_incl(wg, 1, mine, &g);
  MPI_Comm c;
  MPI_Comm_create_group(MPI_COMM_WORLD, g, 40 + rank % 2, &c);  /* only my parity calls */
  int n = -1, r = -1, want = rank % 2 == 0 ? (size + 1) / 2 : size / 2;
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &r);
  CHECK(n == want && r == rank / 2, "create_group size and rank", n, r);
  int s = -1, x = rank, ws = 0;
  for (int i = rank % 2; i < size; i += 2) ws += i;
  MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, c);
  CHECK(s == ws, "allreduce on create_group's communicator", s, ws);
  MPI_Comm_free(&c);
  MPI_Group_free(&g);
  /* A rank outside the group: a local call giving MPI_COMM_NULL. */
  if (size >= 2 && rank == 0) {
    int one = 1;
    MPI_Group_incl(wg, 1, &one, &g);
    MPI_Comm_create_group(MPI_COMM_WORLD, g, 3, &c);
    CHECK(c == MPI_COMM_NULL, "create_group outside the group", 0, 0);
    MPI_Group_free(&g);
  }
  MPI_Group_free(&wg);
}

static void check_dups(void) {
  int key, val = 77, *got, flag = 0, res = -1;
  MPI_Comm base, d;
  MPI_Request rq;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &key, NULL);
  MPI_Comm_set_attr(base, key, &val);
  for (int form = 0; form < 3; ++form) {
    deletes = 0;
    if (form == 0) {
      MPI_Comm_idup(base, &d, &rq);
      MPI_Wait(&rq, MPI_STATUS_IGNORE);
      CHECK(rq == MPI_REQUEST_NULL, "idup request freed by wait", 0, 0);
    } else if (form == 1) {
      MPI_Comm_dup_with_info(base, MPI_INFO_NULL, &d);
    } else {
#if MPI_VERSION >= 4 || defined(INTERLACE_MPI) /* MPI 4 */
      MPI_Comm_idup_with_info(base, MPI_INFO_NULL, &d, &rq);
      MPI_Wait(&rq, MPI_STATUS_IGNORE);
#else
      MPI_Comm_dup(base, &d);
#endif
    }
    MPI_Comm_compare(base, d, &res);
    CHECK(res == MPI_CONGRUENT, "dup forms are congruent", form, res);
    MPI_Comm_get_attr(d, key, &got, &flag);
    CHECK(flag && got == &val, "dup forms copy attributes", form, flag);
    int s = -1, x = 1;
    MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, d);
    CHECK(s == size, "allreduce on a duplicate", form, s);
    MPI_Comm_free(&d);
    CHECK(deletes == 1, "free runs the delete callback", form, deletes);
  }
#ifdef INTERLACE_MPI /* MPI lets an implementation drop hints it does not use */
  {
    MPI_Info info, got;
    char val[16] = "";
    int len = sizeof val;
    MPI_Info_create(&info);
    MPI_Info_set(info, "conf_hint", "yes");
    MPI_Comm_dup_with_info(base, info, &d);
    MPI_Comm_get_info(d, &got);
    MPI_Info_get_string(got, "conf_hint", &len, val, &flag);
    CHECK(flag && strcmp(val, "yes") == 0, "dup_with_info keeps its hints", flag, len);
    MPI_Info_free(&got);
    MPI_Info_free(&info);
    MPI_Comm_free(&d);
  }
#endif
  MPI_Comm_free(&base);
  MPI_Comm_free_keyval(&key);
}

static void check_split_type(void) {
  MPI_Comm c;
  int n = -1, r = -1;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &c);
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &r);
  /* The conformance runs are on one host. */
  CHECK(n == size && r == size - 1 - rank, "split_type shared: one host, ordered by key", n, r);
  MPI_Comm_free(&c);
  MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
  if (rank == 0) {
    CHECK(c == MPI_COMM_NULL, "split_type MPI_UNDEFINED", 0, 0);
  } else {
    MPI_Comm_size(c, &n);
    CHECK(n == size - 1, "split_type beside an MPI_UNDEFINED rank", n, size - 1);
    MPI_Comm_free(&c);
  }
#ifdef MPI_COMM_TYPE_HW_GUIDED /* MPI 4 */
  {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c);
    CHECK(c == MPI_COMM_NULL, "hw_guided without a resource type", 0, 0);
    MPI_Info_set(info, "mpi_hw_resource_type", "@no such resource@");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c);
    CHECK(c == MPI_COMM_NULL, "hw_guided with an unknown resource type", 0, 0);
    MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &c);
    CHECK(c != MPI_COMM_NULL, "hw_guided mpi_shared_memory", 0, 0);
    MPI_Comm_size(c, &n);
    CHECK(n == size, "hw_guided mpi_shared_memory is the host", n, size);
    MPI_Info got;
    char val[64] = "";
    int len = sizeof val, flag = 0;
    MPI_Comm_get_info(c, &got);
    MPI_Info_get_string(got, "mpi_hw_resource_type", &len, val, &flag);
    CHECK(flag && strcmp(val, "mpi_shared_memory") == 0, "hw_guided communicator reports its resource type", flag, len);
    MPI_Info_free(&got);
    MPI_Comm_free(&c);
    MPI_Info_free(&info);
  }
#endif
#ifdef MPI_COMM_TYPE_HW_UNGUIDED
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c);
  if (c != MPI_COMM_NULL) {
    MPI_Comm_size(c, &n);
    CHECK(n < size, "hw_unguided gives a strictly smaller communicator", n, size);
    MPI_Comm_free(&c);
  }
#endif
}

#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
static void check_from_groups(void) {
  MPI_Group wg, even, odd;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  { /* MPI_Comm_create_from_group: an intracommunicator of the (reversed) world group */
    int back[1][3] = {{size - 1, 0, -1}}, n = -1, r = -1;
    MPI_Group rg;
    MPI_Comm c;
    MPI_Group_range_incl(wg, 1, back, &rg);
    MPI_Comm_create_from_group(rg, "conf_comm_ext/rev", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &c);
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    CHECK(n == size && r == size - 1 - rank, "create_from_group", n, r);
    MPI_Comm_free(&c);
    MPI_Group_free(&rg);
  }
  if (size < 2) {
    MPI_Group_free(&wg);
    return;
  }
  int e[1][3] = {{0, size - 1 - (size - 1) % 2, 2}}, o[1][3] = {{1, size - 1 - size % 2, 2}};
  MPI_Group_range_incl(wg, 1, e, &even);
  MPI_Group_range_incl(wg, 1, o, &odd);
  MPI_Comm ic;
  const int mine = rank % 2;
  MPI_Intercomm_create_from_groups(mine ? odd : even, 0, mine ? even : odd, 0, "conf_comm_ext",
                                   MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &ic);
  int flag = 0, n = -1, want = mine ? (size + 1) / 2 : size / 2;
  MPI_Comm_test_inter(ic, &flag);
  MPI_Comm_remote_size(ic, &n);
  CHECK(flag && n == want, "create_from_groups", flag, n);
  int x = rank, s = -1, ws = 0;
  for (int i = 1 - mine; i < size; i += 2) ws += i;
  MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, ic);
  CHECK(s == ws, "allreduce on create_from_groups' communicator", s, ws);
  MPI_Comm_free(&ic);
  MPI_Group_free(&even);
  MPI_Group_free(&odd);
  MPI_Group_free(&wg);
}
#else
static void check_from_groups(void) {}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_ranges();
  check_create_group();
  check_dups();
  check_split_type();
  check_from_groups();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_comm_ext\n");
  MPI_Finalize();
  return 0;
}
