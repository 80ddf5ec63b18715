/* Every collective of the MPI standard's core, blocking and non-blocking, with
 * MPI_IN_PLACE where the standard allows it; each result is checked against values
 * computed locally and a checksum of it is printed, so the output is the same text
 * under any correct MPI library (it depends only on the number of ranks and argv[1],
 * the block length, default 3).
 *
 *   interlace-cc collectives.c -o collectives && interlace run -n 4 ./collectives [n]
 *
 * Rank r contributes the block v(r, i) = (r + 1) * 100 + i, i < n. A wrong result
 * prints "FAIL: <collective> ..." and aborts the job with exit status 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, n;

static int v(int r, int i) { return (r + 1) * 100 + i; }

static long long checksum(const int *a, int len) {
    long long s = 0;
    for (int i = 0; i < len; i++)
        s += (long long)(i + 1) * a[i];
    return s;
}

/* Compares got with want on this rank; a mismatch is described on stderr. */
static int same(const char *what, const int *got, const int *want, int len) {
    for (int i = 0; i < len; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "FAIL: %s on rank %d: element %d is %d, expected %d\n", what, rank, i,
                    got[i], want[i]);
            return 0;
        }
    return 1;
}

/* Every rank reports whether its part was right and its checksum (0 where the result
 * is undefined, e.g. off the root); rank 0 prints the sum of the checksums. */
static void report(const char *name, int ok, long long cs) {
    int all_ok = 0;
    long long total = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Reduce(&cs, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rank == 0)
            fprintf(stderr, "FAIL: %s gave a wrong result (see above)\n", name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("%-28s checksum %lld\n", name, total);
}

static int *ints(int len) { return calloc((size_t)(len > 0 ? len : 1), sizeof(int)); }

/* A user-defined commutative operation: element-wise (a + b) mod 1000003. */
static void add_mod(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = (((int *)in)[i] + ((int *)inout)[i]) % 1000003;
}

static void rooted(void) {
    int root = size - 1, *a = ints(n), *b = ints(n * size), *w = ints(n * size), ok;
    /* Bcast / Ibcast */
    for (int i = 0; i < n; i++) { a[i] = rank == root ? v(root, i) : -1; w[i] = v(root, i); }
    MPI_Bcast(a, n, MPI_INT, root, MPI_COMM_WORLD);
    report("MPI_Bcast", same("MPI_Bcast", a, w, n), checksum(a, n));
    MPI_Request req;
    for (int i = 0; i < n; i++) a[i] = rank == 0 ? v(0, i) : -1, w[i] = v(0, i);
    MPI_Ibcast(a, n, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    report("MPI_Ibcast", same("MPI_Ibcast", a, w, n), checksum(a, n));
    /* Reduce (SUM), in place at the root (MAX), Ireduce (MIN) */
    for (int i = 0; i < n; i++) {
        a[i] = v(rank, i);
        w[i] = 0;
        for (int r = 0; r < size; r++) w[i] += v(r, i);
    }
    MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    ok = rank != root || same("MPI_Reduce", b, w, n);
    report("MPI_Reduce SUM", ok, rank == root ? checksum(b, n) : 0);
    for (int i = 0; i < n; i++) a[i] = v(rank, i), w[i] = v(size - 1, i);
    if (rank == 0) MPI_Reduce(MPI_IN_PLACE, a, n, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    else MPI_Reduce(a, NULL, n, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    ok = rank != 0 || same("MPI_Reduce IN_PLACE", a, w, n);
    report("MPI_Reduce MAX IN_PLACE", ok, rank == 0 ? checksum(a, n) : 0);
    for (int i = 0; i < n; i++) a[i] = v(rank, i), w[i] = v(0, i);
    MPI_Ireduce(a, b, n, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    ok = rank != 0 || same("MPI_Ireduce", b, w, n);
    report("MPI_Ireduce MIN", ok, rank == 0 ? checksum(b, n) : 0);
    /* Gather, in place at the root, Igather */
    for (int i = 0; i < n; i++) a[i] = v(rank, i);
    for (int r = 0; r < size; r++) for (int i = 0; i < n; i++) w[r * n + i] = v(r, i);
    MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD);
    ok = rank != root || same("MPI_Gather", b, w, n * size);
    report("MPI_Gather", ok, rank == root ? checksum(b, n * size) : 0);
    memset(b, 0, sizeof(int) * (size_t)(n * size));
    if (rank == 0) {
        for (int i = 0; i < n; i++) b[i] = v(0, i);
        MPI_Gather(MPI_IN_PLACE, n, MPI_INT, b, n, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Gather(a, n, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
    }
    ok = rank != 0 || same("MPI_Gather IN_PLACE", b, w, n * size);
    report("MPI_Gather IN_PLACE", ok, rank == 0 ? checksum(b, n * size) : 0);
    memset(b, 0, sizeof(int) * (size_t)(n * size));
    MPI_Igather(a, n, MPI_INT, b, n, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    ok = rank != 0 || same("MPI_Igather", b, w, n * size);
    report("MPI_Igather", ok, rank == 0 ? checksum(b, n * size) : 0);
    /* Scatter, Iscatter: the root's buffer is w (all blocks) */
    for (int i = 0; i < n; i++) a[i] = -1, b[i] = v(rank, i);
    MPI_Scatter(w, n, MPI_INT, a, n, MPI_INT, root, MPI_COMM_WORLD);
    report("MPI_Scatter", same("MPI_Scatter", a, b, n), checksum(a, n));
    for (int i = 0; i < n; i++) a[i] = -1;
    MPI_Iscatter(w, n, MPI_INT, a, n, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    report("MPI_Iscatter", same("MPI_Iscatter", a, b, n), checksum(a, n));
    free(a); free(b); free(w);
}

/* Variable counts: rank r holds r + 1 elements; the root's buffer leaves a gap of one
 * element between blocks (displacement of rank r = r(r+1)/2 + r). */
static void rooted_v(void) {
    int total = size * (size + 1) / 2 + size, root = size / 2;
    int *cnt = ints(size), *dsp = ints(size), *a = ints(size), *g = ints(total), *w = ints(total);
    for (int r = 0; r < size; r++) {
        cnt[r] = r + 1;
        dsp[r] = r * (r + 1) / 2 + r;
        for (int i = 0; i < cnt[r]; i++) w[dsp[r] + i] = v(r, i);
    }
    for (int i = 0; i <= rank; i++) a[i] = v(rank, i);
    MPI_Gatherv(a, rank + 1, MPI_INT, g, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD);
    int ok = rank != root || same("MPI_Gatherv", g, w, total);
    report("MPI_Gatherv", ok, rank == root ? checksum(g, total) : 0);
    for (int i = 0; i < size; i++) a[i] = -1;
    MPI_Scatterv(w, cnt, dsp, MPI_INT, a, rank + 1, MPI_INT, root, MPI_COMM_WORLD);
    report("MPI_Scatterv", same("MPI_Scatterv", a, w + dsp[rank], rank + 1), checksum(a, rank + 1));
    MPI_Request req;
    memset(g, 0, sizeof(int) * (size_t)total);
    for (int i = 0; i <= rank; i++) a[i] = v(rank, i);
    MPI_Igatherv(a, rank + 1, MPI_INT, g, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    ok = rank != 0 || same("MPI_Igatherv", g, w, total);
    report("MPI_Igatherv", ok, rank == 0 ? checksum(g, total) : 0);
    for (int i = 0; i < size; i++) a[i] = -1;
    MPI_Iscatterv(w, cnt, dsp, MPI_INT, a, rank + 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    report("MPI_Iscatterv", same("MPI_Iscatterv", a, w + dsp[rank], rank + 1),
           checksum(a, rank + 1));
    free(cnt); free(dsp); free(a); free(g); free(w);
}

static void everyone(void) {
    int N = n * size, *a = ints(N), *b = ints(N), *w = ints(N), ok;
    MPI_Request req;
    /* Allreduce: SUM, MIN in place, BXOR non-blocking, a user-defined operation */
    for (int i = 0; i < n; i++) {
        a[i] = v(rank, i);
        w[i] = 0;
        for (int r = 0; r < size; r++) w[i] += v(r, i);
    }
    MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    report("MPI_Allreduce SUM", same("MPI_Allreduce", b, w, n), checksum(b, n));
    for (int i = 0; i < n; i++) a[i] = v(rank, i), w[i] = v(0, i);
    MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    report("MPI_Allreduce MIN IN_PLACE", same("MPI_Allreduce IN_PLACE", a, w, n), checksum(a, n));
    for (int i = 0; i < n; i++) {
        a[i] = v(rank, i);
        w[i] = 0;
        for (int r = 0; r < size; r++) w[i] ^= v(r, i);
    }
    MPI_Iallreduce(a, b, n, MPI_INT, MPI_BXOR, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    report("MPI_Iallreduce BXOR", same("MPI_Iallreduce", b, w, n), checksum(b, n));
    MPI_Op op;
    MPI_Op_create(add_mod, 1, &op);
    for (int i = 0; i < n; i++) {
        a[i] = 999000 + v(rank, i);
        w[i] = 0;
        for (int r = 0; r < size; r++) w[i] = (w[i] + 999000 + v(r, i)) % 1000003;
    }
    MPI_Allreduce(a, b, n, MPI_INT, op, MPI_COMM_WORLD);
    report("MPI_Allreduce user op", same("MPI_Allreduce user op", b, w, n), checksum(b, n));
    MPI_Op_free(&op);
    /* MAXLOC on (value, index) pairs: the largest value is rank size/2's */
    struct { int val, loc; } p = {rank == size / 2 ? 1000 : rank, rank}, q = {0, -1};
    MPI_Allreduce(&p, &q, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    int want_loc[2] = {1000, size / 2};
    report("MPI_Allreduce MAXLOC", same("MPI_Allreduce MAXLOC", &q.val, want_loc, 2),
           checksum(&q.val, 2));
    /* Reduce_local: inout = in + inout */
    for (int i = 0; i < n; i++) a[i] = v(rank, i), b[i] = i, w[i] = v(rank, i) + i;
    MPI_Reduce_local(a, b, n, MPI_INT, MPI_SUM);
    report("MPI_Reduce_local", same("MPI_Reduce_local", b, w, n), checksum(b, n));
    /* Allgather, in place, Iallgather */
    for (int i = 0; i < n; i++) a[i] = v(rank, i);
    for (int r = 0; r < size; r++) for (int i = 0; i < n; i++) w[r * n + i] = v(r, i);
    MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
    report("MPI_Allgather", same("MPI_Allgather", b, w, N), checksum(b, N));
    memset(b, 0, sizeof(int) * (size_t)N);
    for (int i = 0; i < n; i++) b[rank * n + i] = v(rank, i);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n, MPI_INT, MPI_COMM_WORLD);
    report("MPI_Allgather IN_PLACE", same("MPI_Allgather IN_PLACE", b, w, N), checksum(b, N));
    memset(b, 0, sizeof(int) * (size_t)N);
    MPI_Iallgather(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    report("MPI_Iallgather", same("MPI_Iallgather", b, w, N), checksum(b, N));
    /* Alltoall: block j of rank r holds r*1000 + j*10 + i and goes to rank j */
    for (int j = 0; j < size; j++)
        for (int i = 0; i < n; i++) a[j * n + i] = rank * 1000 + j * 10 + i, w[j * n + i] = j * 1000 + rank * 10 + i;
    MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
    report("MPI_Alltoall", same("MPI_Alltoall", b, w, N), checksum(b, N));
    memset(b, 0, sizeof(int) * (size_t)N);
    MPI_Ialltoall(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    report("MPI_Ialltoall", same("MPI_Ialltoall", b, w, N), checksum(b, N));
    /* Scan, Exscan (undefined on rank 0), Iscan, Iexscan */
    for (int i = 0; i < n; i++) {
        a[i] = v(rank, i);
        w[i] = 0;
        for (int r = 0; r <= rank; r++) w[i] += v(r, i);
    }
    MPI_Scan(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    report("MPI_Scan", same("MPI_Scan", b, w, n), checksum(b, n));
    memset(b, 0, sizeof(int) * (size_t)n);
    MPI_Iscan(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    report("MPI_Iscan", same("MPI_Iscan", b, w, n), checksum(b, n));
    for (int i = 0; i < n; i++) w[i] -= v(rank, i);
    MPI_Exscan(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ok = rank == 0 || same("MPI_Exscan", b, w, n);
    report("MPI_Exscan", ok, rank == 0 ? 0 : checksum(b, n));
    memset(b, 0, sizeof(int) * (size_t)n);
    MPI_Iexscan(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    ok = rank == 0 || same("MPI_Iexscan", b, w, n);
    report("MPI_Iexscan", ok, rank == 0 ? 0 : checksum(b, n));
    free(a); free(b); free(w);
}

/* Alltoallv and Reduce_scatter with counts that differ per rank. */
static void everyone_v(void) {
    int *sc = ints(size), *sd = ints(size), *rc = ints(size), *rd = ints(size);
    int stot = 0, rtot = 0;
    for (int j = 0; j < size; j++) { /* rank r sends j + 1 elements to rank j */
        sc[j] = j + 1, sd[j] = stot, stot += sc[j];
        rc[j] = rank + 1, rd[j] = rtot, rtot += rc[j];
    }
    int *a = ints(stot), *b = ints(rtot), *w = ints(rtot);
    for (int j = 0; j < size; j++)
        for (int i = 0; i < sc[j]; i++) a[sd[j] + i] = rank * 1000 + j * 10 + i;
    for (int j = 0; j < size; j++)
        for (int i = 0; i < rc[j]; i++) w[rd[j] + i] = j * 1000 + rank * 10 + i;
    MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD);
    report("MPI_Alltoallv", same("MPI_Alltoallv", b, w, rtot), checksum(b, rtot));
    MPI_Request req;
    memset(b, 0, sizeof(int) * (size_t)rtot);
    MPI_Ialltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    report("MPI_Ialltoallv", same("MPI_Ialltoallv", b, w, rtot), checksum(b, rtot));
    /* Reduce_scatter: element k of the sum of everyone's vector lands on its block's rank */
    int *x = ints(stot), *y = ints(size), *z = ints(size);
    for (int k = 0; k < stot; k++) x[k] = rank * 7 + k;
    for (int i = 0; i < sc[rank]; i++) {
        z[i] = 0;
        for (int r = 0; r < size; r++) z[i] += r * 7 + sd[rank] + i;
    }
    MPI_Reduce_scatter(x, y, sc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    report("MPI_Reduce_scatter", same("MPI_Reduce_scatter", y, z, sc[rank]), checksum(y, sc[rank]));
    memset(y, 0, sizeof(int) * (size_t)size);
    MPI_Ireduce_scatter(x, y, sc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    report("MPI_Ireduce_scatter", same("MPI_Ireduce_scatter", y, z, sc[rank]), checksum(y, sc[rank]));
    /* Reduce_scatter_block: blocks of 1 element; element r of everyone's vector */
    for (int i = 0; i < 1; i++) {
        z[i] = 0;
        for (int r = 0; r < size; r++) z[i] += r * 7 + rank;
    }
    MPI_Reduce_scatter_block(x, y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    report("MPI_Reduce_scatter_block", same("MPI_Reduce_scatter_block", y, z, 1), checksum(y, 1));
    y[0] = 0;
    MPI_Ireduce_scatter_block(x, y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    report("MPI_Ireduce_scatter_block", same("MPI_Ireduce_scatter_block", y, z, 1), checksum(y, 1));
    free(sc); free(sd); free(rc); free(rd); free(a); free(b); free(w); free(x); free(y); free(z);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = argc > 1 ? atoi(argv[1]) : 3;
    if (n < 1) n = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    report("MPI_Barrier", 1, 0);
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    report("MPI_Ibarrier", 1, 0);
    rooted();
    rooted_v();
    everyone();
    everyone_v();
    if (rank == 0)
        printf("collectives on %d ranks, block %d: all results correct\n", size, n);
    MPI_Finalize();
    return 0;
}
