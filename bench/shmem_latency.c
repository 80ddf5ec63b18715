/* OpenSHMEM put/get latency (FSHMEM Table III), OSU style: the active PE of each pair
 * (PE 0 with 2 PEs) repeats one blocking operation many times; the figure is the median
 * over repetitions of the mean time per operation, in microseconds.
 *
 *   put_us       shmem_putmem + shmem_quiet (the put is complete at the target)
 *   get_us       shmem_getmem
 *   p_us         shmem_long_p + shmem_quiet (8 B, the "short" put)
 *   g_us         shmem_long_g (8 B, the "short" get)
 *   pingpong_us  half round trip: shmem_putmem, shmem_fence, shmem_long_p of a flag; the
 *                peer waits on the flag (shmem_long_wait_until) and answers the same way
 *
 * Sizes 8 B to 2 MiB. The same source builds with any OpenSHMEM 1.4+ (oshcc, interlace-oshcc).
 *   <launcher> -np 2 ./shmem_latency [--quick] [--label NAME] [--only put_us,...] */
#define _GNU_SOURCE /* before shmem.h pulls in the system headers: sched_setaffinity */
#include <shmem.h>

#include "shmem_bench.h"

static sb_pes P;
static char *src, *dst;
static long *flag, *word; /* symmetric: ping-pong flag; target of p/g */
static long seq;          /* flag values so far; both sides of a pair count alike */

typedef double (*timed_fn)(size_t n, int iters);

static double t_put(size_t n, int iters) {
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) {
        shmem_putmem(dst, src, n, P.peer);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static double t_get(size_t n, int iters) {
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) shmem_getmem(dst, src, n, P.peer);
    return bench_now() - t0;
}

static double t_p(size_t n, int iters) {
    (void)n;
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) {
        shmem_long_p(word, i, P.peer);
        shmem_quiet();
    }
    return bench_now() - t0;
}

static volatile long g_sink; /* keeps the gets from being dropped */

static double t_g(size_t n, int iters) {
    (void)n;
    long s = 0;
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) s += shmem_long_g(word, P.peer);
    double t = bench_now() - t0;
    g_sink = s;
    return t;
}

/* Both PEs of a pair run this; the fence orders the data before the flag, as a program
 * that signals "data ready" must. The time is one round trip per iteration. */
static double t_pingpong(size_t n, int iters) {
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) {
        if (P.active) {
            shmem_putmem(dst, src, n, P.peer);
            shmem_fence();
            shmem_long_p(flag, ++seq, P.peer);
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, seq);
        } else {
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, ++seq);
            shmem_putmem(dst, src, n, P.peer);
            shmem_fence();
            shmem_long_p(flag, seq, P.peer);
        }
    }
    return bench_now() - t0;
}

/* One point: warm-up, calibration on PE 0, reps timed repetitions; only the active PEs run
 * one-sided operations (both, for the ping-pong). Returns nothing; PE 0 prints. */
static void measure(const sb_opts* o, const char* metric, timed_fn fn, size_t n, int both,
                    double scale) {
    int runs = both || P.active;
    shmem_barrier_all();
    double warm = 0;
    if (runs) fn(n, 20);
    if (runs) warm = fn(n, 20) / 20;
    int iters = sb_agree(&P, sb_iters(warm, o->lat_s, 10));
    double v[BENCH_MAX_REPS];
    for (int r = 0; r < o->reps; r++) {
        shmem_barrier_all();
        v[r] = runs ? fn(n, iters) / iters * scale * 1e6 : 0;
    }
    if (P.me == 0) bench_report(o->label, metric, n, v, o->reps, 0, iters);
}

int main(int argc, char** argv) {
    sb_opts o = sb_parse(argc, argv, 8, 2u << 20);
    P = sb_start("shmem_latency", 1);
    src = shmem_malloc(o.max);
    dst = shmem_malloc(o.max);
    flag = shmem_malloc(sizeof(long));
    word = shmem_malloc(sizeof(long));
    if (!src || !dst || !flag || !word) {
        fprintf(stderr, "shmem_latency: shmem_malloc(%zu) failed on PE %d (raise SHMEM_SYMMETRIC_SIZE)\n",
                o.max, P.me);
        shmem_global_exit(2);
    }
    memset(src, 1, o.max); /* fault the pages in now, not inside a timed loop */
    memset(dst, 0, o.max);
    *flag = *word = 0;
    shmem_barrier_all();

    if (sb_want(&o, "p_us")) measure(&o, "p_us", t_p, 8, 0, 1);
    if (sb_want(&o, "g_us")) measure(&o, "g_us", t_g, 8, 0, 1);
    for (size_t n = sb_first(&o); n; n = sb_next(&o, n)) {
        if (sb_want(&o, "put_us")) {
            measure(&o, "put_us", t_put, n, 0, 1);
            sb_verify_put(&P, dst, src, n);
        }
        if (sb_want(&o, "get_us")) {
            measure(&o, "get_us", t_get, n, 0, 1);
            sb_verify_get(&P, dst, src, n);
        }
        if (sb_want(&o, "pingpong_us")) measure(&o, "pingpong_us", t_pingpong, n, 1, 0.5);
    }
    shmem_barrier_all();
    shmem_free(word);
    shmem_free(flag);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
