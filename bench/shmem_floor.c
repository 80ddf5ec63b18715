/* The floor for the OpenSHMEM put/get figures on one host: the same copy between two local
 * buffers, through a function call the compiler cannot inline (a put is a library call
 * that ends in such a copy when the target's heap is mapped). One process, one core.
 *
 *   copy_us       one call copying n bytes, microseconds (compare put_us / get_us)
 *   copy_bw_MBps  windows of 64 such calls, MB/s (compare put_bw_MBps / get_bw_MBps)
 *
 * Sizes 4 B to 2 MiB, the sweeps of shmem_latency and shmem_bw; same statistics.
 * For sizes that fit the caches this is a cache-to-cache copy on one core, so it bounds
 * a transfer between two cores from below in time (above in bandwidth).
 *   ./shmem_floor [--quick] [--label NAME] */
#include "shmem_bench.h"

static void* volatile sink;

__attribute__((noinline)) static void copy_call(void* dst, const void* src, size_t n) {
    memcpy(dst, src, n);
    sink = dst;
}

/* Called through a volatile pointer, as a shared library's entry point is called
 * through the PLT, so the call itself is never optimised away. */
static void (*volatile copy_fn)(void*, const void*, size_t) = copy_call;

static double run(char* dst, const char* src, size_t n, long calls) {
    void (*f)(void*, const void*, size_t) = copy_fn;
    double t0 = bench_now();
    for (long i = 0; i < calls; i++) f(dst, src, n);
    return bench_now() - t0;
}

int main(int argc, char** argv) {
    sb_opts o = sb_parse(argc, argv, 4, 2u << 20);
    if (!strcmp(o.label, "unnamed")) o.label = "floor";
    bench_pin(0);
    char* src = aligned_alloc(4096, o.max < 4096 ? 4096 : o.max);
    char* dst = aligned_alloc(4096, o.max < 4096 ? 4096 : o.max);
    if (!src || !dst) {
        fprintf(stderr, "shmem_floor: cannot allocate 2 x %zu bytes\n", o.max);
        return 2;
    }
    memset(src, 1, o.max);
    memset(dst, 0, o.max);
    double v[BENCH_MAX_REPS];
    /* Two sweeps, so that every size of shmem_latency (from 8 B) and of shmem_bw (from
     * 4 B) has its floor also when --quick steps by 4. */
    size_t lat_min = o.min == 4 ? 8 : o.min;
    for (size_t n = lat_min; n && sb_want(&o, "copy_us"); n = sb_next(&o, n)) {
        run(dst, src, n, 100);
        int calls = sb_iters(run(dst, src, n, 100) / 100, o.lat_s, 10);
        for (int r = 0; r < o.reps; r++) v[r] = run(dst, src, n, calls) / calls * 1e6;
        bench_report(o.label, "copy_us", n, v, o.reps, 0, calls);
    }
    for (size_t n = sb_first(&o); n && sb_want(&o, "copy_bw_MBps"); n = sb_next(&o, n)) {
        int windows = sb_iters(run(dst, src, n, 2 * SB_WINDOW) / 2, o.bw_s, 1);
        long calls = (long)windows * SB_WINDOW;
        for (int r = 0; r < o.reps; r++) v[r] = (double)n * calls / run(dst, src, n, calls) / 1e6;
        bench_report(o.label, "copy_bw_MBps", n, v, o.reps, 1, windows);
    }
    free(src);
    free(dst);
    return 0;
}
