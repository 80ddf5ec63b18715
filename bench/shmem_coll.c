/* OpenSHMEM collective latency on all PEs, in microseconds per call (the slowest PE's mean,
 * median over repetitions):
 *
 *   barrier_all_us   shmem_barrier_all, back to back
 *   bcast64_us       shmem_broadcast64 over the active set of all PEs (root PE 0; pSync)
 *   broadcastmem_us  shmem_broadcastmem(SHMEM_TEAM_WORLD, ...)          (OpenSHMEM 1.5+)
 *   sum_to_all_us    shmem_long_sum_to_all over all PEs (pWrk, pSync)
 *   sum_reduce_us    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ...)        (OpenSHMEM 1.5+)
 *
 * Broadcasts and reductions are timed one call at a time with an untimed barrier between
 * calls: the active-set forms require it before their pSync is reused, and the team forms
 * get the same treatment so that both measure one call from a synchronised start.
 * Sizes 8 B to 32 KiB (bytes of longs). Any PE count.
 *   <launcher> -np N ./shmem_coll [--quick] [--label NAME] [--only barrier_all_us,...] */
#define _GNU_SOURCE /* before shmem.h pulls in the system headers: sched_setaffinity */
#include <shmem.h>

#include "shmem_bench.h"

static sb_pes P;
static long *src, *dst, *psync, *pwrk;
static size_t psync_len;

typedef void (*coll_fn)(size_t nlongs);

static void c_bcast64(size_t k) { shmem_broadcast64(dst, src, k, 0, 0, 0, P.npes, psync); }
static void c_sum_to_all(size_t k) {
    shmem_long_sum_to_all(dst, src, (int)k, 0, 0, P.npes, pwrk, psync);
}
#if SB_HAVE_TEAMS
static void c_broadcastmem(size_t k) { shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, k * sizeof(long), 0); }
static void c_sum_reduce(size_t k) { shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, k); }
#endif

/* Mean seconds per call on this PE, barriers excluded. */
static double timed(coll_fn fn, size_t k, int iters) {
    double sum = 0;
    for (int i = 0; i < iters; i++) {
        shmem_barrier_all();
        double t0 = bench_now();
        fn(k);
        sum += bench_now() - t0;
    }
    return sum / iters;
}

static double timed_barrier(size_t k, int iters) {
    (void)k;
    shmem_barrier_all();
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) shmem_barrier_all();
    return (bench_now() - t0) / iters;
}

static void measure(const sb_opts* o, const char* metric, coll_fn fn, size_t bytes) {
    size_t k = bytes / sizeof(long);
    double warm;
    if (fn) {
        timed(fn, k, 5);
        /* a call plus the barrier that separates calls (about as long again) */
        warm = 2 * timed(fn, k, 10) + 1e-6;
    } else {
        timed_barrier(k, 20);
        warm = timed_barrier(k, 50);
    }
    int iters = sb_agree(&P, sb_iters(warm, o->lat_s, 5));
    double v[BENCH_MAX_REPS];
    for (int r = 0; r < o->reps; r++) {
        double t = fn ? timed(fn, k, iters) : timed_barrier(k, iters);
        v[r] = sb_max(&P, t) * 1e6;
    }
    if (P.me == 0) bench_report(o->label, metric, bytes, v, o->reps, 0, iters);
}

/* After the timed calls, one checked call: a broadcast reaches every non-root PE, a sum
 * adds every PE's contribution. */
static void verify(const char* metric, coll_fn fn, size_t bytes, int is_reduce) {
    size_t k = bytes / sizeof(long);
    for (size_t i = 0; i < k; i++) {
        src[i] = is_reduce ? (long)(P.me + 1) * (long)(i + 1) : (long)(i * 7 + 3);
        dst[i] = -1;
    }
    shmem_barrier_all();
    fn(k);
    shmem_barrier_all();
    long npes = P.npes;
    size_t bad = 0;
    if (is_reduce || P.me != 0)
        for (size_t i = 0; i < k; i++) {
            long want = is_reduce ? npes * (npes + 1) / 2 * (long)(i + 1) : (long)(i * 7 + 3);
            bad += dst[i] != want;
        }
    if (bad) {
        fprintf(stderr, "shmem_coll: %s of %zu bytes: %zu wrong elements on PE %d\n", metric,
                bytes, bad, P.me);
        shmem_global_exit(3);
    }
    shmem_barrier_all();
}

static void sweep(const sb_opts* o, const char* metric, coll_fn fn, int is_reduce) {
    if (!sb_want(o, metric)) return;
    for (size_t n = sb_first(o); n; n = sb_next(o, n)) {
        measure(o, metric, fn, n);
        verify(metric, fn, n, is_reduce);
    }
}

int main(int argc, char** argv) {
    sb_opts o = sb_parse(argc, argv, 8, 32u << 10);
    o.step = o.quick ? 64 : 8; /* 8 B, 64 B, 512 B, 4 KiB, 32 KiB */
    if (o.min < sizeof(long)) o.min = sizeof(long);
    P = sb_start("shmem_coll", 0);
    size_t k = o.max / sizeof(long) + 1;
    psync_len = SHMEM_BCAST_SYNC_SIZE > SHMEM_REDUCE_SYNC_SIZE ? SHMEM_BCAST_SYNC_SIZE
                                                              : SHMEM_REDUCE_SYNC_SIZE;
    size_t wrk = k / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? k / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    src = shmem_malloc(k * sizeof(long));
    dst = shmem_malloc(k * sizeof(long));
    psync = shmem_malloc(psync_len * sizeof(long));
    pwrk = shmem_malloc(wrk * sizeof(long));
    if (!src || !dst || !psync || !pwrk) {
        fprintf(stderr, "shmem_coll: shmem_malloc(%zu) failed on PE %d (raise SHMEM_SYMMETRIC_SIZE)\n",
                k * sizeof(long), P.me);
        shmem_global_exit(2);
    }
    for (size_t i = 0; i < psync_len; i++) psync[i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i < k; i++) src[i] = dst[i] = 0;
    shmem_barrier_all();

    if (sb_want(&o, "barrier_all_us")) measure(&o, "barrier_all_us", NULL, 0);
    sweep(&o, "bcast64_us", c_bcast64, 0);
#if SB_HAVE_TEAMS
    sweep(&o, "broadcastmem_us", c_broadcastmem, 0);
#endif
    sweep(&o, "sum_to_all_us", c_sum_to_all, 1);
#if SB_HAVE_TEAMS
    sweep(&o, "sum_reduce_us", c_sum_reduce, 1);
#endif
    shmem_barrier_all();
    shmem_free(pwrk);
    shmem_free(psync);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
