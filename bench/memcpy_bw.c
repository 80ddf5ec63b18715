/* The physical limit for the p2p bandwidth figures: one thread's memcpy bandwidth between
 * two distinct buffers, for the same sizes and statistics as the streaming benchmark. A
 * single-copy p2p transfer (the receiver copies straight out of the sender's buffer) can
 * at best approach this; a two-copy one (through a bounce buffer) gets about half.
 * Counts n bytes per copy of n bytes, as the p2p benchmarks count n per message. */
#include "bench_common.h"

/* Keeps the compiler from proving the copies useless and dropping them. */
static void* volatile sink;

static double copy_rate(char* dst, const char* src, size_t n, int copies) {
    double t0 = bench_now();
    for (int i = 0; i < copies; i++) {
        memcpy(dst, src, n);
        sink = dst;
    }
    return (double)n * copies / (bench_now() - t0) / 1e9;
}

int main(int argc, char** argv) {
    bench_opts o = bench_parse(argc, argv);
    if (!strcmp(o.label, "unnamed")) o.label = "memcpy";
    bench_pin(0);
    char* src = aligned_alloc(4096, o.bw_max);
    char* dst = aligned_alloc(4096, o.bw_max);
    memset(src, 1, o.bw_max);
    memset(dst, 0, o.bw_max);
    double v[BENCH_MAX_REPS];
    for (size_t n = o.bw_min; n; n = bench_next(n, o.bw_step, o.bw_max)) {
        double warm = copy_rate(dst, src, n, BENCH_BW_WARMUP * BENCH_WINDOW);
        int copies = bench_calibrate(n * BENCH_WINDOW / (warm * 1e9), o.quick, 1) * BENCH_WINDOW;
        int reps = bench_bw_reps(n, &o);
        for (int r = 0; r < reps; r++) v[r] = copy_rate(dst, src, n, copies);
        bench_report(o.label, "bandwidth_GBps", n, v, reps, 1, copies);
    }
    free(src);
    free(dst);
    return 0;
}
