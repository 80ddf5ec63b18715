/* ranks: 1 2 3 4 5 */
/* Intercommunicators between the even and the odd world ranks: Intercomm_create,
 * test_inter, size/rank (local group), remote size/group, p2p (ranks are remote ranks,
 * ANY_SOURCE matches any remote rank), every collective with MPI's intercommunicator
 * semantics (MPI_ROOT / MPI_PROC_NULL roots), the non-blocking forms, dup, compare,
 * split, create, merge, free, and a bad root under MPI_ERRORS_RETURN. One rank: only
 * the intracommunicator checks. */
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

/* Group `color` (0 even, 1 odd world ranks): its size and the world rank of rank i. */
static int gsz(int color) { return color == 0 ? (size + 1) / 2 : size / 2; }
static int wr(int color, int i) { return 2 * i + color; }

static int color, lrank, lsize, rsize;

static void check_p2p(MPI_Comm ic, const char *what) {
  int *out = malloc(rsize * sizeof(int)), in, got = 0;
  MPI_Request *reqs = malloc(rsize * sizeof(MPI_Request));
  for (int j = 0; j < rsize; ++j) {
    out[j] = rank * 1000 + j;
    MPI_Isend(&out[j], 1, MPI_INT, j, 5, ic, &reqs[j]);
  }
  for (int j = 0; j < rsize; ++j) {
    MPI_Status st;
    MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 5, ic, &st);
    CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize, what, st.MPI_SOURCE, rsize);
    CHECK(st.MPI_TAG == 5, what, st.MPI_TAG, st.MPI_SOURCE);
    CHECK(in == wr(1 - color, st.MPI_SOURCE) * 1000 + lrank, what, in, st.MPI_SOURCE);
    got |= 1 << st.MPI_SOURCE;
  }
  CHECK(got == (1 << rsize) - 1, what, got, rsize);
  MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE);
  /* ANY_TAG with a named source, then Sendrecv with the same remote rank */
  if (lrank < rsize) MPI_Send(&rank, 1, MPI_INT, lrank, 6, ic);
  if (lrank < lsize && lrank < rsize) {
    MPI_Status st;
    MPI_Recv(&in, 1, MPI_INT, lrank, MPI_ANY_TAG, ic, &st);
    CHECK(st.MPI_TAG == 6 && st.MPI_SOURCE == lrank && in == wr(1 - color, lrank), what, st.MPI_TAG, in);
  }
  int peer = lrank % rsize, back = -1, mine = rank;
  if (lrank < rsize && lrank < lsize) {
    MPI_Sendrecv(&mine, 1, MPI_INT, lrank, 9, &back, 1, MPI_INT, lrank, 9, ic, MPI_STATUS_IGNORE);
    CHECK(back == wr(1 - color, lrank), what, back, peer);
  }
  free(out);
  free(reqs);
}

static void check_collectives(MPI_Comm ic) {
  int rsum = 0;
  for (int j = 0; j < rsize; ++j) rsum += wr(1 - color, j) + 1;
  MPI_Barrier(ic);
  /* Bcast both ways: rank 0 of group c is the root of round c. */
  for (int c = 0; c < 2; ++c) {
    int buf[3] = {-1, -1, -1}, root;
    if (color == c) {
      root = lrank == 0 ? MPI_ROOT : MPI_PROC_NULL;
      if (lrank == 0) buf[0] = 7, buf[1] = 8 + c, buf[2] = 9;
    } else {
      root = 0;
    }
    MPI_Bcast(buf, 3, MPI_INT, root, ic);
    if (color != c) CHECK(buf[0] == 7 && buf[1] == 8 + c && buf[2] == 9, "bcast", buf[1], c);
    else if (lrank != 0) CHECK(buf[0] == -1, "bcast: proc_null buffer untouched", buf[0], c);
  }
  /* Reduce: group 1's last rank gets the sum of group 0's (world rank + 1). */
  {
    int v[2] = {rank + 1, 2 * (rank + 1)}, r[2] = {-1, -1}, root;
    int last1 = gsz(1) - 1;
    if (color == 1) root = lrank == last1 ? MPI_ROOT : MPI_PROC_NULL;
    else root = last1;
    MPI_Reduce(v, r, 2, MPI_INT, MPI_SUM, root, ic);
    if (color == 1 && lrank == last1) CHECK(r[0] == rsum && r[1] == 2 * rsum, "reduce", r[0], rsum);
  }
  /* Allreduce: each group gets the other's sum. */
  {
    int v = rank + 1, r = -1;
    MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, ic);
    CHECK(r == rsum, "allreduce", r, rsum);
    double dv = rank, dr = -1;
    MPI_Allreduce(&dv, &dr, 1, MPI_DOUBLE, MPI_MAX, ic);
    CHECK(dr == wr(1 - color, rsize - 1), "allreduce max", (int)dr, rsize);
  }
  /* Gather / Gatherv to group 0's rank 0; Scatter / Scatterv from group 1's rank 0. */
  {
    int *all = malloc(2 * rsize * sizeof(int) + 8), v[2] = {rank, -rank};
    int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Gather(v, 2, MPI_INT, all, 2, MPI_INT, root, ic);
    if (root == MPI_ROOT)
      for (int j = 0; j < rsize; ++j) CHECK(all[2 * j] == wr(1, j) && all[2 * j + 1] == -wr(1, j), "gather", j, all[2 * j]);
    int *counts = malloc(rsize * sizeof(int) + 4), *displs = malloc(rsize * sizeof(int) + 4);
    for (int j = 0; j < rsize; ++j) counts[j] = 1, displs[j] = rsize - 1 - j;
    MPI_Gatherv(v, 1, MPI_INT, all, counts, displs, MPI_INT, root, ic);
    if (root == MPI_ROOT)
      for (int j = 0; j < rsize; ++j) CHECK(all[rsize - 1 - j] == wr(1, j), "gatherv", j, all[rsize - 1 - j]);
    int sroot = color == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, got[2] = {-1, -1};
    for (int j = 0; j < rsize; ++j) all[2 * j] = 50 + j, all[2 * j + 1] = 60 + j;
    MPI_Scatter(all, 2, MPI_INT, got, 2, MPI_INT, sroot, ic);
    if (color == 0) CHECK(got[0] == 50 + lrank && got[1] == 60 + lrank, "scatter", got[0], lrank);
    for (int j = 0; j < rsize; ++j) counts[j] = 1, displs[j] = 2 * j + 1;
    MPI_Scatterv(all, counts, displs, MPI_INT, got, 1, MPI_INT, sroot, ic);
    if (color == 0) CHECK(got[0] == 60 + lrank, "scatterv", got[0], lrank);
    free(all);
    free(counts);
    free(displs);
  }
  /* Allgather(v), Alltoall(v). */
  {
    int *all = malloc(rsize * sizeof(int)), *in = malloc(rsize * sizeof(int));
    int *counts = malloc(rsize * sizeof(int)), *displs = malloc(rsize * sizeof(int));
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, ic);
    for (int j = 0; j < rsize; ++j) CHECK(all[j] == wr(1 - color, j), "allgather", j, all[j]);
    for (int j = 0; j < rsize; ++j) counts[j] = 1, displs[j] = rsize - 1 - j;
    MPI_Allgatherv(&rank, 1, MPI_INT, all, counts, displs, MPI_INT, ic);
    for (int j = 0; j < rsize; ++j) CHECK(all[rsize - 1 - j] == wr(1 - color, j), "allgatherv", j, all[j]);
    for (int j = 0; j < rsize; ++j) all[j] = rank * 100 + j;
    MPI_Alltoall(all, 1, MPI_INT, in, 1, MPI_INT, ic);
    for (int j = 0; j < rsize; ++j) CHECK(in[j] == wr(1 - color, j) * 100 + lrank, "alltoall", j, in[j]);
    for (int j = 0; j < rsize; ++j) counts[j] = 1, displs[j] = j;
    MPI_Alltoallv(all, counts, displs, MPI_INT, in, counts, displs, MPI_INT, ic);
    for (int j = 0; j < rsize; ++j) CHECK(in[j] == wr(1 - color, j) * 100 + lrank, "alltoallv", j, in[j]);
    free(all);
    free(in);
    free(counts);
    free(displs);
  }
  /* Reduce_scatter(_block): both groups' vectors hold lsize * rsize elements. */
  {
    int n = lsize * rsize, *v = malloc(n * sizeof(int)), *r = malloc(rsize * sizeof(int));
    int *counts = malloc(lsize * sizeof(int));
    for (int i = 0; i < n; ++i) v[i] = i + 1;
    MPI_Reduce_scatter_block(v, r, rsize, MPI_INT, MPI_SUM, ic);
    for (int k = 0; k < rsize; ++k) CHECK(r[k] == rsize * (lrank * rsize + k + 1), "reduce_scatter_block", k, r[k]);
    for (int i = 0; i < lsize; ++i) counts[i] = rsize;
    MPI_Reduce_scatter(v, r, counts, MPI_INT, MPI_SUM, ic);
    for (int k = 0; k < rsize; ++k) CHECK(r[k] == rsize * (lrank * rsize + k + 1), "reduce_scatter", k, r[k]);
    free(v);
    free(r);
    free(counts);
  }
  /* Large data (past any eager limit) both ways and through a bcast. */
  {
    const int big = 1 << 18;
    int *a = malloc(big * sizeof(int)), *b = malloc(big * sizeof(int));
    for (int i = 0; i < big; ++i) a[i] = rank + i;
    if (lrank < rsize) {
      MPI_Sendrecv(a, big, MPI_INT, lrank, 11, b, big, MPI_INT, lrank, 11, ic, MPI_STATUS_IGNORE);
      for (int i = 0; i < big; i += 4099) CHECK(b[i] == wr(1 - color, lrank) + i, "large sendrecv", i, b[i]);
    }
    int root = color == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(a, big, MPI_INT, root, ic);
    if (color == 0)
      for (int i = 0; i < big; i += 4099) CHECK(a[i] == wr(1, 0) + i, "large bcast", i, a[i]);
    free(a);
    free(b);
  }
  /* A derived type (every other int) through bcast and gather. */
  {
    MPI_Datatype vec;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int buf[8];
    for (int i = 0; i < 8; ++i) buf[i] = color == 0 && lrank == 0 ? 100 + i : -1;
    int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(buf, 1, vec, root, ic);
    if (color == 1)
      for (int i = 0; i < 8; ++i) CHECK(buf[i] == (i % 2 ? -1 : 100 + i), "bcast of a vector type", i, buf[i]);
    /* gather: one vector from each of group 0 lands as 4 contiguous ints at group 1's rank 0 */
    for (int i = 0; i < 8; ++i) buf[i] = rank * 10 + i;
    int *all = malloc(4 * (rsize + 1) * sizeof(int));
    root = color == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Gather(buf, 1, vec, all, 4, MPI_INT, root, ic);
    if (root == MPI_ROOT)
      for (int j = 0; j < rsize; ++j)
        for (int k = 0; k < 4; ++k) CHECK(all[4 * j + k] == wr(0, j) * 10 + 2 * k, "gather of a vector type", j, k);
    free(all);
    MPI_Type_free(&vec);
  }
  /* Non-blocking forms. */
  {
    MPI_Request rq[2];
    int v = rank + 1, r = -1, b = color == 0 ? 42 : -1;
    int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Ibarrier(ic, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Iallreduce(&v, &r, 1, MPI_INT, MPI_SUM, ic, &rq[0]);
    MPI_Ibcast(&b, 1, MPI_INT, root, ic, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    CHECK(r == rsum, "iallreduce", r, rsum);
    if (color == 1) CHECK(b == 42, "ibcast", b, 42);
  }
}

static void check_intercomm(MPI_Comm ic) {
  int flag = 0, n = -1, r = -1;
  MPI_Comm_test_inter(ic, &flag);
  CHECK(flag == 1, "test_inter", flag, 1);
  MPI_Comm_size(ic, &n);
  MPI_Comm_rank(ic, &r);
  CHECK(n == lsize && r == lrank, "size/rank are the local group's", n, r);
  MPI_Comm_remote_size(ic, &n);
  CHECK(n == rsize, "remote_size", n, rsize);
  MPI_Group wg, g;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Comm_remote_group(ic, &g);
  for (int j = 0; j < rsize; ++j) {
    int w = -1;
    MPI_Group_translate_ranks(g, 1, &j, wg, &w);
    CHECK(w == wr(1 - color, j), "remote_group", j, w);
  }
  MPI_Group_free(&g);
  MPI_Comm_group(ic, &g);
  for (int j = 0; j < lsize; ++j) {
    int w = -1;
    MPI_Group_translate_ranks(g, 1, &j, wg, &w);
    CHECK(w == wr(color, j), "comm_group is the local group", j, w);
  }
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  check_p2p(ic, "p2p");
  check_collectives(ic);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int flag = 1, n = 0;
  MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
  CHECK(flag == 0, "world is an intracommunicator", flag, 0);
#ifdef INTERLACE_MPI /* erroneous in MPI; Open MPI answers 0 */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Comm_remote_size(MPI_COMM_WORLD, &n) != MPI_SUCCESS, "remote_size of an intracommunicator fails", n, 0);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
  if (size >= 2) {
    color = rank % 2;
    lrank = rank / 2;
    lsize = gsz(color);
    rsize = gsz(1 - color);
    MPI_Comm local, ic, dup;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    { /* a local leader outside local_comm: an error on every local rank, no hang */
      MPI_Comm bad = MPI_COMM_NULL;
      MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
      int rc = MPI_Intercomm_create(local, lsize + 3, MPI_COMM_WORLD, 0, 17, &bad), cls = -1;
      MPI_Error_class(rc, &cls);
      CHECK(rc != MPI_SUCCESS && bad == MPI_COMM_NULL, "bad local_leader is an error", cls, rc);
#ifdef INTERLACE_MPI /* a bad remote_leader is seen by the leader alone: the others hear why */
      rc = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, size + 10, 17, &bad);
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_RANK && bad == MPI_COMM_NULL, "bad remote_leader fails on every local rank", cls, rc);
#endif
      MPI_Comm_set_errhandler(local, MPI_ERRORS_ARE_FATAL);
    }
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 17, &ic);
    check_intercomm(ic);

    int res = -1;
    MPI_Comm_compare(ic, ic, &res);
    CHECK(res == MPI_IDENT, "compare ident", res, MPI_IDENT);
    MPI_Comm_compare(ic, MPI_COMM_WORLD, &res);
    CHECK(res == MPI_UNEQUAL, "compare inter with intra", res, MPI_UNEQUAL);
    MPI_Comm_dup(ic, &dup);
    MPI_Comm_compare(ic, dup, &res);
    CHECK(res == MPI_CONGRUENT, "compare dup", res, MPI_CONGRUENT);
    check_p2p(dup, "p2p on a dup");
    { /* traffic on ic and dup stays apart */
      int a = 1, b = 2, x = 0, y = 0;
      if (lrank == 0) {
        MPI_Request rq[2];
        MPI_Isend(&a, 1, MPI_INT, 0, 3, ic, &rq[0]);
        MPI_Isend(&b, 1, MPI_INT, 0, 3, dup, &rq[1]);
        MPI_Recv(&y, 1, MPI_INT, 0, 3, dup, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        CHECK(x == 1 && y == 2, "dup isolates traffic", x, y);
      }
    }

    /* Bad root: an error, not a hang or a crash. */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    int v = 0, rc = MPI_Bcast(&v, 1, MPI_INT, rsize + 5, dup), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ROOT, "bcast with a bad root gives MPI_ERR_ROOT", cls, rc);
    MPI_Comm_free(&dup);
    CHECK(dup == MPI_COMM_NULL, "free sets MPI_COMM_NULL", 0, 0);

    /* Split: color lrank % 2 in both groups, keys reversing the order. */
    MPI_Comm sc;
    MPI_Comm_split(ic, lrank % 2, -lrank, &sc);
    int mycol = lrank % 2, ln = 0, rn = 0, before = 0;
    for (int i = 0; i < lsize; ++i)
      if (i % 2 == mycol) ++ln, before += i > lrank;
    for (int i = 0; i < rsize; ++i) rn += i % 2 == mycol;
    if (rn == 0) {
      CHECK(sc == MPI_COMM_NULL, "split without a remote partner is MPI_COMM_NULL", rn, 0);
    } else {
      MPI_Comm_size(sc, &n);
      CHECK(n == ln, "split local size", n, ln);
      MPI_Comm_remote_size(sc, &n);
      CHECK(n == rn, "split remote size", n, rn);
      MPI_Comm_rank(sc, &n);
      CHECK(n == before, "split orders by key", n, before);
      int x = rank + 1, s = -1, want = 0;
      for (int i = 0; i < rsize; ++i)
        if (i % 2 == mycol) want += wr(1 - color, i) + 1;
      MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, sc);
      CHECK(s == want, "allreduce on a split intercommunicator", s, want);
      MPI_Comm_free(&sc);
    }

#ifdef INTERLACE_MPI /* Open MPI 4.1 crashes on split_type of an intercommunicator */
    { /* split_type shared: one host, so the whole intercommunicator again */
      MPI_Comm sh;
      MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &sh);
      MPI_Comm_test_inter(sh, &flag);
      MPI_Comm_remote_size(sh, &n);
      CHECK(flag && n == rsize, "split_type shared of an intercommunicator", flag, n);
      MPI_Comm_size(sh, &n);
      CHECK(n == lsize, "split_type shared of an intercommunicator: local size", n, lsize);
      MPI_Comm_free(&sh);
    }
#endif
    /* Create: each group drops its last rank when it has more than one. */
    MPI_Group lg, sub;
    MPI_Comm_group(ic, &lg);
    int last = lsize - 1;
    if (lsize > 1) MPI_Group_excl(lg, 1, &last, &sub);
    else MPI_Group_incl(lg, 1, &last, &sub);
    MPI_Comm cc;
    MPI_Comm_create(ic, sub, &cc);
    if (lsize > 1 && lrank == last) {
      CHECK(cc == MPI_COMM_NULL, "create: not in the group", lrank, 0);
    } else {
      int want = rsize > 1 ? rsize - 1 : 1;
      MPI_Comm_remote_size(cc, &n);
      CHECK(n == want, "create remote size", n, want);
      MPI_Comm_free(&cc);
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&lg);

    /* Merge: the group passing high = 0 comes first, either way round. */
    for (int hi = 0; hi < 2; ++hi) {
      MPI_Comm m;
      int high = color == hi;  /* round 0: even ranks high; round 1: odd ranks high */
      MPI_Intercomm_merge(ic, high, &m);
      MPI_Comm_test_inter(m, &flag);
      CHECK(flag == 0, "merge gives an intracommunicator", flag, 0);
      MPI_Comm_size(m, &n);
      CHECK(n == size, "merged size", n, size);
      MPI_Comm_rank(m, &n);
      int want = high ? gsz(1 - color) + lrank : lrank;
      CHECK(n == want, "merged rank", n, want);
      int x = rank, s = -1;
      MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, m);
      CHECK(s == size * (size - 1) / 2, "allreduce on the merged communicator", s, size);
      MPI_Comm_free(&m);
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_inter\n");
  MPI_Finalize();
  return 0;
}
