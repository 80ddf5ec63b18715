/* MPI baseline for p2p_pingpong.cpp: the same two measurements, step for step, so that
 * Open MPI, MPICH and interlace are compared on identical traffic.
 *   latency:   half round trip of blocking send/recv ping-pong (us)
 *   bandwidth: windows of BENCH_WINDOW isend/irecv + waitall, then a 1-byte ack (GB/s)
 * Run with exactly 2 ranks; rank 0 prints one JSON line per (size, metric). */
#include "bench_common.h"

#include <mpi.h>

enum { TAG_DATA = 1, TAG_ACK = 2, TAG_SYNC = 3 };

static int rank;
static char *sbuf, *rbuf;

/* Both ranks leave at nearly the same moment; a 1-byte exchange rather than MPI_Barrier
 * so that interlace's harness, which has no barrier yet, does exactly the same. */
static void sync_pair(void) {
    char a = 0, b;
    MPI_Sendrecv(&a, 1, MPI_BYTE, 1 - rank, TAG_SYNC, &b, 1, MPI_BYTE, 1 - rank, TAG_SYNC,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Rank 0's value wins: only rank 0's clock calibrates. */
static int agree(int n) {
    if (rank == 0)
        MPI_Send(&n, 1, MPI_INT, 1, TAG_SYNC, MPI_COMM_WORLD);
    else
        MPI_Recv(&n, 1, MPI_INT, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return n;
}

static double pingpong(size_t n, int iters) {
    sync_pair();
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(sbuf, (int)n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        }
    }
    return (bench_now() - t0) / iters / 2 * 1e6;
}

static double stream(size_t n, int windows) {
    MPI_Request req[BENCH_WINDOW];
    char ack = 0;
    sync_pair();
    double t0 = bench_now();
    for (int w = 0; w < windows; w++) {
        /* One buffer for the whole window, as the OSU benchmarks do: a window of distinct
         * 64 MiB buffers would not fit, and the bytes' values do not matter here. */
        if (rank == 0) {
            for (int i = 0; i < BENCH_WINDOW; i++)
                MPI_Isend(sbuf, (int)n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &req[i]);
            MPI_Waitall(BENCH_WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int i = 0; i < BENCH_WINDOW; i++)
                MPI_Irecv(rbuf, (int)n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &req[i]);
            MPI_Waitall(BENCH_WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    double t = bench_now() - t0;
    return (double)n * BENCH_WINDOW * windows / t / 1e9;
}

static void verify(size_t n) {
    if (rank == 0) {
        memset(sbuf, bench_pattern(n), n);
        MPI_Send(sbuf, (int)n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
    } else {
        memset(rbuf, 0, n);
        MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        size_t bad = bench_check(rbuf, n);
        if (bad) {
            fprintf(stderr, "mpi_pingpong: %zu of %zu bytes wrong\n", bad, n);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "mpi_pingpong: needs exactly 2 ranks, got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bench_opts o = bench_parse(argc, argv);
    bench_pin(rank);
    size_t cap = o.bw_max > o.lat_max ? o.bw_max : o.lat_max;
    sbuf = aligned_alloc(4096, cap);
    rbuf = aligned_alloc(4096, cap);
    memset(sbuf, 1, cap);  /* fault the pages in now, not inside a timed loop */
    memset(rbuf, 0, cap);
    double v[BENCH_MAX_REPS];

    for (size_t n = o.lat ? o.lat_min : 0; n; n = bench_next(n, o.lat_step, o.lat_max)) {
        pingpong(n, BENCH_LAT_WARMUP);  /* the first run pays for connection set-up */
        double warm = pingpong(n, BENCH_LAT_WARMUP);
        int iters = agree(bench_calibrate(2e-6 * warm, o.quick, 0));
        for (int r = 0; r < o.reps; r++) v[r] = pingpong(n, iters);
        verify(n);
        if (rank == 0) bench_report(o.label, "latency_us", n, v, o.reps, 0, iters);
    }
    for (size_t n = o.bw ? o.bw_min : 0; n; n = bench_next(n, o.bw_step, o.bw_max)) {
        int warm_windows = n * BENCH_WINDOW < (256u << 20) ? BENCH_BW_WARMUP : 1;
        stream(n, warm_windows);
        double warm = stream(n, warm_windows);
        int windows = agree(bench_calibrate(n * BENCH_WINDOW / (warm * 1e9), o.quick, 1));
        int reps = bench_bw_reps(n, &o);
        for (int r = 0; r < reps; r++) v[r] = stream(n, windows);
        verify(n);
        if (rank == 0) bench_report(o.label, "bandwidth_GBps", n, v, reps, 1, windows);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
