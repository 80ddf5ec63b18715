/* Shared by every benchmark program (C and C++) so that all implementations are measured
 * with the same sizes, repetition counts, statistics, pinning and output format; a
 * difference in the figures must come from the library, never from the harness. */
#ifndef INTERLACE_BENCH_COMMON_H
#define INTERLACE_BENCH_COMMON_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_WINDOW 64
#define BENCH_MAX_REPS 31

typedef struct {
    int quick;        /* --quick: few sizes, few repetitions (smoke run) */
    const char* label; /* --label NAME: the implementation name in the output */
    int lat, bw;       /* --lat / --bw: run only that part (default: both) */
    int reps;         /* timed repetitions per size (warm-up excluded) */
    size_t lat_min, lat_max, bw_min, bw_max;
    int lat_step, bw_step; /* multiply the size by this between points */
} bench_opts;

static inline double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Pin before touching buffers so that first-touch puts them on the right CPU's memory,
 * and do it inside the program so that every launcher's own binding policy is overridden
 * the same way. Returns the cpu. */
static inline int bench_pin(int rank) {
    /* BENCH_NO_PIN=1 leaves placement to the launcher: run_mpi.py --binding unbound|bound
     * compares the launchers' own policies, as third-party programs (OSU) see them. */
    const char* no_pin = getenv("BENCH_NO_PIN");
    if (no_pin && *no_pin && strcmp(no_pin, "0") != 0) return -1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1) ncpu = 1;
    int cpu = (int)(rank % ncpu);
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    if (sched_setaffinity(0, sizeof s, &s) != 0) perror("sched_setaffinity");
    return cpu;
}

static inline bench_opts bench_parse(int argc, char** argv) {
    bench_opts o;
    o.quick = 0;
    size_t only = 0;  /* --size N: just that size in both sweeps (for profiling) */
    o.label = "unnamed";
    o.lat = o.bw = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) o.quick = 1;
        else if (!strcmp(argv[i], "--label") && i + 1 < argc) o.label = argv[++i];
        else if (!strcmp(argv[i], "--lat")) o.lat = 1;
        else if (!strcmp(argv[i], "--bw")) o.bw = 1;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) only = strtoull(argv[++i], 0, 10);
    }
    if (!o.lat && !o.bw) o.lat = o.bw = 1;
    o.reps = o.quick ? 3 : 11;
    o.lat_min = 8; o.lat_max = 64 << 10; o.lat_step = o.quick ? 8 : 2;
    o.bw_min = 1 << 10; o.bw_max = o.quick ? 4 << 20 : 64 << 20; o.bw_step = 4;
    if (only) o.lat_min = o.lat_max = o.bw_min = o.bw_max = only;
    return o;
}

/* Repetitions must be long enough that the clock's resolution and one-off interrupts
 * vanish (~20 ms for latency, ~50 ms for bandwidth), yet short for slow transports (TCP is
 * 50x slower than shared memory at 8 B). So rank 0 times a short warm-up and derives the
 * count of iterations (round trips, or windows) from it, within [lo, hi]; the ranks then
 * agree on it with one message outside the timed loops. */
#define BENCH_LAT_WARMUP 50
#define BENCH_BW_WARMUP 2
static inline int bench_calibrate(double seconds_per_iter, int quick, int is_bw) {
    double target = is_bw ? (quick ? 0.01 : 0.05) : (quick ? 0.004 : 0.02);
    int lo = is_bw ? 1 : 20, hi = 1 << 20;  /* hi only guards against a bad warm-up */
    double n = seconds_per_iter > 0 ? target / seconds_per_iter : hi;
    return n < lo ? lo : n > hi ? hi : (int)n;
}

/* The largest sizes take ~0.3 s per repetition; fewer repetitions keep a round short. */
static inline int bench_bw_reps(size_t bytes, const bench_opts* o) {
    if (bytes >= (16u << 20)) return o->reps < 5 ? o->reps : 5;
    return o->reps;
}

/* Next size of a sweep: multiplies by step but never skips the last size (64 KiB must be
 * measured even when the step would jump from 32 KiB past it). Returns 0 when done. */
static inline size_t bench_next(size_t n, int step, size_t max) {
    if (n >= max) return 0;
    n *= (size_t)step;
    return n > max ? max : n;
}

/* After each size, one untimed message whose bytes the receiver checks: a fast path that
 * loses or misplaces data must fail the benchmark, not win it. The value changes per size
 * so a stale buffer does not pass. Returns the number of wrong bytes. */
static inline unsigned char bench_pattern(size_t bytes) { return (unsigned char)(bytes * 7 + 3); }
static inline size_t bench_check(const char* buf, size_t bytes) {
    size_t bad = 0;
    for (size_t i = 0; i < bytes; i++) bad += (unsigned char)buf[i] != bench_pattern(bytes);
    return bad;
}

static int bench_cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* One JSON line: the median and the best of the repetitions. For latency the best is the
 * minimum; for bandwidth it is the maximum, still reported as "best". */
static inline void bench_report(const char* impl, const char* metric, size_t bytes,
                                double* v, int n, int higher_is_better, int iters) {
    qsort(v, (size_t)n, sizeof v[0], bench_cmp_double);
    double med = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    double best = higher_is_better ? v[n - 1] : v[0];
    printf("{\"impl\": \"%s\", \"metric\": \"%s\", \"bytes\": %zu, \"median\": %.4f, "
           "\"best\": %.4f, \"reps\": %d, \"iters\": %d}\n",
           impl, metric, bytes, med, best, n, iters);
    fflush(stdout);
}

#endif
