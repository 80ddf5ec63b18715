/* Two-rank latency and bandwidth over a network link that may lose packets (issue 11:
 * interlace udp against tcp and Open MPI's TCP BTL; bench/run_udp.py drives it). Plain
 * MPI, so one source builds with interlace-cc and with mpicc.openmpi.
 *
 * Differs from mpi_pingpong.c because loss changes what a figure means: one lost
 * packet costs a retransmission timeout (milliseconds against microseconds), so
 *   - every round trip is timed on its own and the report gives the mean (what a program
 *     sees) and the 50th/99th percentiles (the loss-free path and the retransmissions);
 *   - repetitions are bounded by time, not by a count calibrated at 0% loss, so that a
 *     run at 10% loss stays short;
 *   - a size stops starting repetitions after --deadline seconds (default 5), and reports
 *     how many it did;
 *   - the window is small (at most 8 messages and 2 MiB) so that one window of 1 MiB
 *     messages is not minutes of traffic on a lossy link.
 * Rank 0 prints one JSON line per (metric, size). */
#include "bench_common.h"

#include <mpi.h>

enum { TAG_DATA = 1, TAG_ACK = 2, TAG_CTL = 3 };
enum { MAX_RTT = 1 << 20, MAX_WINDOW = 256 };

static int rank;
static char *sbuf, *rbuf;
static double* rtt; /* half round trips of one repetition, seconds */

typedef struct {
    const char* label;
    int lat, bw, reps, window;
    double budget;   /* seconds per repetition */
    double deadline; /* seconds per size, after which no further repetition starts */
    size_t window_bytes; /* a window carries at most this much (at least one message) */
} opts;

/* Rank 0 decides and tells rank 1 (the count of iterations to come, 0 = stop), outside
 * the timed part. */
static int ctl(int n) {
    if (rank == 0)
        MPI_Send(&n, 1, MPI_INT, 1, TAG_CTL, MPI_COMM_WORLD);
    else
        MPI_Recv(&n, 1, MPI_INT, 0, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return n;
}

/* Runs round trips in batches of 16 until the budget is spent; returns the count. The
 * batch count travels in a control message so that the two ranks never disagree. */
static int pingpong_rep(size_t n, double budget) {
    int done = 0;
    double start = bench_now();
    for (;;) {
        int batch = ctl(rank == 0 ? ((bench_now() - start < budget && done + 16 <= MAX_RTT) ? 16 : 0) : 0);
        if (!batch) break;
        for (int i = 0; i < batch; i++, done++) {
            if (rank == 0) {
                double t0 = bench_now();
                MPI_Send(sbuf, (int)n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                rtt[done] = (bench_now() - t0) / 2;
            } else {
                MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, (int)n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
            }
        }
    }
    return done;
}

/* One window: W isends against W irecvs, then a 1-byte ack so that the sender's clock
 * covers delivery, not just buffering. */
static void window(size_t n, int w) {
    MPI_Request req[MAX_WINDOW];
    char ack = 0;
    for (int i = 0; i < w; i++) {
        if (rank == 0)
            MPI_Isend(sbuf, (int)n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &req[i]);
        else
            MPI_Irecv(rbuf, (int)n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &req[i]);
    }
    MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
    if (rank == 0)
        MPI_Recv(&ack, 1, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(&ack, 1, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
}

/* Whole windows until the budget is spent (at least one); returns MB/s (10^6 B/s). */
static double stream_rep(size_t n, int w, double budget) {
    int windows = 0;
    double start = bench_now(), t;
    for (;;) {
        t = bench_now() - start;
        if (!ctl(rank == 0 ? (windows == 0 || t < budget) : 0)) break;
        window(n, w);
        windows++;
    }
    return (double)n * w * windows / t / 1e6;
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
            fprintf(stderr, "net_pingpong: %zu of %zu bytes wrong\n", bad, n);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
}

static double median(double* v, int n) {
    qsort(v, (size_t)n, sizeof v[0], bench_cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double pct(const double* sorted, int n, double p) {
    int i = (int)(p * (n - 1) + 0.5);
    return sorted[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* Whether another repetition starts: rank 0 decides, so that a lossy run whose
 * repetitions take seconds stays within the deadline (and reports fewer of them). */
static int more(const opts* o, int r, double start) {
    return ctl(rank == 0 ? (r < o->reps && (r == 0 || bench_now() - start < o->deadline)) : 0);
}

static void latency(const opts* o, size_t n) {
    double mean[BENCH_MAX_REPS], p50[BENCH_MAX_REPS], p99[BENCH_MAX_REPS], worst = 0;
    long total = 0;
    pingpong_rep(n, 0.02); /* warm-up: connection set-up and first-touch */
    double start = bench_now();
    int r = 0;
    for (; more(o, r, start); r++) {
        int k = pingpong_rep(n, o->budget);
        total += k;
        if (rank) continue;
        double sum = 0;
        for (int i = 0; i < k; i++) sum += rtt[i];
        qsort(rtt, (size_t)k, sizeof rtt[0], bench_cmp_double);
        mean[r] = sum / k * 1e6;
        p50[r] = pct(rtt, k, 0.50) * 1e6;
        p99[r] = pct(rtt, k, 0.99) * 1e6;
        if (rtt[k - 1] * 1e6 > worst) worst = rtt[k - 1] * 1e6;
    }
    verify(n);
    if (rank == 0)
        printf("{\"impl\": \"%s\", \"metric\": \"latency_us\", \"bytes\": %zu, \"median\": %.3f, "
               "\"p50\": %.3f, \"p99\": %.3f, \"max\": %.1f, \"reps\": %d, \"iters\": %ld}\n",
               o->label, n, median(mean, r), median(p50, r), median(p99, r), worst, r, total);
}

static void bandwidth(const opts* o, size_t n) {
    double v[BENCH_MAX_REPS];
    size_t fit = o->window_bytes / n;
    int w = fit < 1 ? 1 : fit < (size_t)o->window ? (int)fit : o->window;
    window(n, 1); /* warm-up: one message, so that a lossy run does not pay for a window */
    double start = bench_now();
    int r = 0;
    for (; more(o, r, start); r++) v[r] = stream_rep(n, w, o->budget);
    verify(n);
    if (rank == 0) {
        double med = median(v, r);
        printf("{\"impl\": \"%s\", \"metric\": \"bandwidth_MBps\", \"bytes\": %zu, \"median\": %.2f, "
               "\"min\": %.2f, \"max\": %.2f, \"reps\": %d, \"window\": %d}\n",
               o->label, n, med, v[0], v[r - 1], r, w);
    }
}

static int parse(int argc, char** argv, opts* o) {
    *o = (opts){"unnamed", 0, 0, 5, 8, 0.1, 5.0, 2u << 20};
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--lat")) o->lat = 1;
        else if (!strcmp(a, "--bw")) o->bw = 1;
        else if (!strcmp(a, "--label") && v) o->label = argv[++i];
        else if (!strcmp(a, "--reps") && v) o->reps = atoi(argv[++i]);
        else if (!strcmp(a, "--window") && v) o->window = atoi(argv[++i]);
        else if (!strcmp(a, "--budget") && v) o->budget = atof(argv[++i]);
        else if (!strcmp(a, "--deadline") && v) o->deadline = atof(argv[++i]);
        else if (!strcmp(a, "--window-bytes") && v) o->window_bytes = strtoull(argv[++i], 0, 10);
        else {
            if (rank == 0) fprintf(stderr, "net_pingpong: unknown or incomplete option '%s'\n", a);
            return 0;
        }
    }
    if (o->reps < 1 || o->reps > BENCH_MAX_REPS || o->window < 1 || o->window > MAX_WINDOW ||
        !(o->budget > 0 && o->budget < 60) || !(o->deadline > 0)) {
        if (rank == 0)
            fprintf(stderr, "net_pingpong: --reps %d (1-%d), --window %d (1-%d), --budget %g s (0-60)\n",
                    o->reps, BENCH_MAX_REPS, o->window, MAX_WINDOW, o->budget);
        return 0;
    }
    if (!o->lat && !o->bw) o->lat = o->bw = 1;
    return 1;
}

int main(int argc, char** argv) {
    static const size_t lat_sizes[] = {8, 1024}, bw_sizes[] = {64 << 10, 1 << 20};
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "net_pingpong: needs exactly 2 ranks, got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    opts o;
    if (!parse(argc, argv, &o)) MPI_Abort(MPI_COMM_WORLD, 2);
    bench_pin(rank);
    size_t cap = 1 << 20;
    sbuf = aligned_alloc(4096, cap);
    rbuf = aligned_alloc(4096, cap);
    rtt = malloc(sizeof *rtt * MAX_RTT);
    memset(sbuf, 1, cap);
    memset(rbuf, 0, cap);
    if (o.lat)
        for (int i = 0; i < 2; i++) latency(&o, lat_sizes[i]);
    if (o.bw)
        for (int i = 0; i < 2; i++) bandwidth(&o, bw_sizes[i]);
    fflush(stdout);
    free(sbuf);
    free(rbuf);
    free(rtt);
    MPI_Finalize();
    return 0;
}
