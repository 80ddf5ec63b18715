/* OpenSHMEM bandwidth and rates (FSHMEM Fig. 5), OSU style: the active PE of each pair
 * (PE 0 with 2 PEs) issues windows of 64 non-blocking operations, each window closed by
 * shmem_quiet; the figure is the median over repetitions.
 *
 *   put_bw_MBps     shmem_putmem_nbi x 64 + shmem_quiet, 4 B to 2 MiB (1 MB = 10^6 B)
 *   get_bw_MBps     shmem_getmem_nbi x 64 + shmem_quiet
 *   put_rate_Mmsgs  8 B shmem_putmem_nbi x 64 + shmem_quiet: million messages per second
 *   p_rate_Mmsgs    8 B shmem_long_p x 64 + shmem_quiet
 *   fadd_rate_Mops  blocking shmem_long_atomic_fetch_add to the peer: million ops per second
 *
 * All operations of a window use one buffer, as the OSU benchmarks do.
 *   <launcher> -np 2 ./shmem_bw [--quick] [--label NAME] [--only put_bw_MBps,...] */
#define _GNU_SOURCE /* before shmem.h pulls in the system headers: sched_setaffinity */
#include <shmem.h>

#include "shmem_bench.h"

static sb_pes P;
static char *src, *dst;
static long* counter; /* symmetric: fetch_add target */
static long fadds;    /* fetch_adds this PE issued, for the check */

typedef double (*timed_fn)(size_t n, int windows);

static double t_put(size_t n, int windows) {
    double t0 = bench_now();
    for (int w = 0; w < windows; w++) {
        for (int i = 0; i < SB_WINDOW; i++) shmem_putmem_nbi(dst, src, n, P.peer);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static double t_get(size_t n, int windows) {
    double t0 = bench_now();
    for (int w = 0; w < windows; w++) {
        for (int i = 0; i < SB_WINDOW; i++) shmem_getmem_nbi(dst, src, n, P.peer);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static double t_p(size_t n, int windows) {
    (void)n;
    long* target = (long*)dst;
    double t0 = bench_now();
    for (int w = 0; w < windows; w++) {
        for (int i = 0; i < SB_WINDOW; i++) shmem_long_p(target, i, P.peer);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static volatile long fadd_sink;

/* A window here is SB_WINDOW blocking fetch_adds (each waits for its value). */
static double t_fadd(size_t n, int windows) {
    (void)n;
    long s = 0;
    double t0 = bench_now();
    for (int w = 0; w < windows; w++)
        for (int i = 0; i < SB_WINDOW; i++) s += shmem_long_atomic_fetch_add(counter, 1, P.peer);
    double t = bench_now() - t0;
    fadds += (long)windows * SB_WINDOW;
    fadd_sink = s;
    return t;
}

/* value(bytes moved or operations done, seconds) -> the reported unit */
typedef double (*unit_fn)(size_t n, double ops, double secs);
static double mbps(size_t n, double ops, double secs) { return (double)n * ops / secs / 1e6; }
static double mops(size_t n, double ops, double secs) { (void)n; return ops / secs / 1e6; }

static void measure(const sb_opts* o, const char* metric, timed_fn fn, unit_fn unit, size_t n) {
    shmem_barrier_all();
    double warm = 0;
    if (P.active) fn(n, 2);
    if (P.active) warm = fn(n, 2) / 2;
    int windows = sb_agree(&P, sb_iters(warm, o->bw_s, 1));
    double v[BENCH_MAX_REPS];
    for (int r = 0; r < o->reps; r++) {
        shmem_barrier_all();
        v[r] = P.active ? unit(n, (double)windows * SB_WINDOW, fn(n, windows)) : 0;
    }
    if (P.me == 0) bench_report(o->label, metric, n, v, o->reps, 1, windows);
}

/* Every fetch_add must have landed exactly once: the peer's counter equals the number of
 * adds its partner issued (read back with a get after a barrier). */
static void verify_fadd(void) {
    shmem_barrier_all();
    if (P.active) {
        long got = shmem_long_g(counter, P.peer);
        if (got != fadds) {
            fprintf(stderr, "shmem_bw: fetch_add counter on PE %d is %ld, expected %ld\n", P.peer,
                    got, fadds);
            shmem_global_exit(3);
        }
    }
    shmem_barrier_all();
}

int main(int argc, char** argv) {
    sb_opts o = sb_parse(argc, argv, 4, 2u << 20);
    P = sb_start("shmem_bw", 1);
    size_t cap = o.max < 8 ? 8 : o.max;
    src = shmem_malloc(cap);
    dst = shmem_malloc(cap);
    counter = shmem_malloc(sizeof(long));
    if (!src || !dst || !counter) {
        fprintf(stderr, "shmem_bw: shmem_malloc(%zu) failed on PE %d (raise SHMEM_SYMMETRIC_SIZE)\n",
                cap, P.me);
        shmem_global_exit(2);
    }
    memset(src, 1, cap); /* fault the pages in now, not inside a timed loop */
    memset(dst, 0, cap);
    *counter = 0;
    shmem_barrier_all();

    for (size_t n = sb_first(&o); n; n = sb_next(&o, n)) {
        if (sb_want(&o, "put_bw_MBps")) {
            measure(&o, "put_bw_MBps", t_put, mbps, n);
            sb_verify_put(&P, dst, src, n);
        }
        if (sb_want(&o, "get_bw_MBps")) {
            measure(&o, "get_bw_MBps", t_get, mbps, n);
            sb_verify_get(&P, dst, src, n);
        }
    }
    if (sb_want(&o, "put_rate_Mmsgs")) measure(&o, "put_rate_Mmsgs", t_put, mops, 8);
    if (sb_want(&o, "p_rate_Mmsgs")) measure(&o, "p_rate_Mmsgs", t_p, mops, 8);
    if (sb_want(&o, "fadd_rate_Mops")) {
        measure(&o, "fadd_rate_Mops", t_fadd, mops, 8);
        verify_fadd();
    }
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
