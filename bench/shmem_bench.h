/* Shared by the OpenSHMEM benchmarks (shmem_latency.c, shmem_bw.c, shmem_coll.c) and their
 * copy floor (shmem_floor.c): sizes, repetition counts, calibration and output are the same
 * for every implementation, so a difference in the figures comes from the library.
 *
 * Include <shmem.h> first to get the PE helpers at the bottom; shmem_floor.c includes this
 * without it. Output is bench_common.h's JSON line per (metric, bytes).
 *
 * Pairs: with N PEs (N even), PE i < N/2 is "active" and talks to PE i + N/2; N = 2 is the
 * usual PE 0 -> PE 1 measurement, 4 and 8 run that many pairs at once (oversubscribed on a
 * 2-core machine) and PE 0's figure is reported. */
#ifndef INTERLACE_SHMEM_BENCH_H
#define INTERLACE_SHMEM_BENCH_H
#include "bench_common.h"

#define SB_WINDOW 64 /* operations per window before a quiet (bandwidth and rates) */

typedef struct {
    int quick;
    const char* label;
    int reps;           /* timed repetitions per point; the median is the figure */
    size_t min, max;    /* size sweep (bytes); latency and bandwidth set their own range */
    int step;           /* multiply the size by this between points */
    double lat_s, bw_s; /* target length of one repetition */
    const char* only;   /* --only a,b: run only these metrics (NULL: all) */
} sb_opts;

static inline void sb_usage(const char* prog) {
    fprintf(stderr,
            "usage: %s [--quick] [--label NAME] [--reps N] [--min BYTES] [--max BYTES] "
            "[--size BYTES] [--only METRIC,...]\n",
            prog);
}

/* lo..hi is the program's default sweep; --min/--max/--size narrow it. A bad value is
 * named and the program exits 2 (before shmem_init, so no launcher is left waiting). */
static inline sb_opts sb_parse(int argc, char** argv, size_t lo, size_t hi) {
    sb_opts o = {0, "unnamed", 0, lo, hi, 2, 0, 0, NULL};
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        char* end = NULL;
        if (!strcmp(a, "--quick")) { o.quick = 1; continue; }
        if (!v || (strcmp(a, "--label") && strcmp(a, "--reps") && strcmp(a, "--min") &&
                   strcmp(a, "--max") && strcmp(a, "--size") && strcmp(a, "--only"))) {
            fprintf(stderr, "%s: unknown or incomplete option '%s'\n", argv[0], a);
            sb_usage(argv[0]);
            exit(2);
        }
        i++;
        if (!strcmp(a, "--label")) { o.label = v; continue; }
        if (!strcmp(a, "--only")) { o.only = v; continue; }
        unsigned long long n = strtoull(v, &end, 10);
        if (!*v || *end || n == 0 || (!strcmp(a, "--reps") && n > BENCH_MAX_REPS)) {
            fprintf(stderr, "%s: bad value '%s' for %s (a positive integer%s)\n", argv[0], v, a,
                    strcmp(a, "--reps") ? "" : ", at most 31");
            exit(2);
        }
        if (!strcmp(a, "--reps")) o.reps = (int)n;
        else if (!strcmp(a, "--min")) o.min = n;
        else if (!strcmp(a, "--max")) o.max = n;
        else o.min = o.max = n;
    }
    if (o.min > o.max) {
        fprintf(stderr, "%s: --min %zu is above --max %zu\n", argv[0], o.min, o.max);
        exit(2);
    }
    if (!o.reps) o.reps = o.quick ? 5 : 11;
    o.step = o.quick ? 4 : 2;
    /* Short repetitions: the machine is shared, and many short medians beat a few long
     * means against the host moving the vCPUs (docs/benchmarks.md). */
    o.lat_s = o.quick ? 0.002 : 0.005;
    o.bw_s = o.quick ? 0.004 : 0.010;
    return o;
}

/* Whether metric m is wanted (--only is a comma-separated list of exact names). */
static inline int sb_want(const sb_opts* o, const char* m) {
    if (!o->only) return 1;
    size_t len = strlen(m);
    for (const char* p = o->only; *p;) {
        const char* c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (l == len && !strncmp(p, m, l)) return 1;
        if (!c) break;
        p = c + 1;
    }
    return 0;
}

/* Iterations so that one repetition takes about `target` seconds, from a warm-up's time per
 * iteration; at least lo so a slow point still averages several operations. */
static inline int sb_iters(double per_iter, double target, int lo) {
    double n = per_iter > 0 ? target / per_iter : 1e7;
    if (n > 1e7) n = 1e7;
    return n < lo ? lo : (int)n;
}

static inline size_t sb_first(const sb_opts* o) { return o->min; }
static inline size_t sb_next(const sb_opts* o, size_t n) { return bench_next(n, o->step, o->max); }

#if defined(SHMEM_MAJOR_VERSION)
/* 1.5 added teams and the team collectives; 1.4 (Open MPI's OSHMEM) has only active sets. */
#define SB_HAVE_TEAMS (SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5)

typedef struct {
    int me, npes, peer, active; /* active: this PE starts the operations of its pair */
    int* agreed;                /* symmetric: PE 0's iteration count, for every PE */
    double* times;              /* symmetric, npes entries: per-PE figures for PE 0 */
} sb_pes;

static inline sb_pes sb_start(const char* prog, int need_pairs) {
    shmem_init();
    sb_pes p;
    p.me = shmem_my_pe();
    p.npes = shmem_n_pes();
    if (need_pairs && (p.npes < 2 || p.npes % 2)) {
        if (p.me == 0) fprintf(stderr, "%s: needs an even number of PEs (pairs), got %d\n", prog, p.npes);
        shmem_global_exit(2);
    }
    p.peer = p.npes > 1 ? (p.me + p.npes / 2) % p.npes : 0;
    p.active = p.me < p.npes / 2;
    p.agreed = (int*)shmem_malloc(sizeof(int));
    p.times = (double*)shmem_malloc(sizeof(double) * (size_t)p.npes);
    if (!p.agreed || !p.times) {
        fprintf(stderr, "%s: shmem_malloc of a few bytes failed on PE %d\n", prog, p.me);
        shmem_global_exit(2);
    }
    bench_pin(p.me);
    shmem_barrier_all();
    return p;
}

/* PE 0's value on every PE (only PE 0's clock calibrates, so that both sides of a pair
 * run the same count). The barrier inside also orders it against the previous use. */
static inline int sb_agree(const sb_pes* p, int n) {
    shmem_barrier_all();
    if (p->me == 0)
        for (int pe = 0; pe < p->npes; pe++) shmem_int_p(p->agreed, n, pe);
    shmem_quiet();
    shmem_barrier_all();
    return *p->agreed;
}

/* The largest of every PE's v, on PE 0 (the slowest PE sets a collective's time). */
static inline double sb_max(const sb_pes* p, double v) {
    shmem_double_p(&p->times[p->me], v, 0);
    shmem_quiet();
    shmem_barrier_all();
    double m = v;
    if (p->me == 0)
        for (int pe = 0; pe < p->npes; pe++) m = p->times[pe] > m ? p->times[pe] : m;
    shmem_barrier_all();
    return m;
}

static inline void sb_fail(const sb_pes* p, const char* what, size_t n, size_t bad) {
    fprintf(stderr, "shmem bench: %s of %zu bytes: %zu wrong bytes on PE %d\n", what, n, bad, p->me);
    shmem_global_exit(3);
}

/* Checks that a put of n bytes from each active PE lands in its peer's dst: a fast path
 * that loses data must fail the run, not win it. */
static inline void sb_verify_put(const sb_pes* p, char* dst, char* src, size_t n) {
    memset(dst, 0, n);
    shmem_barrier_all();
    if (p->active) {
        memset(src, bench_pattern(n), n);
        shmem_putmem(dst, src, n, p->peer);
        shmem_quiet();
    }
    shmem_barrier_all();
    if (!p->active) {
        size_t bad = bench_check(dst, n);
        if (bad) sb_fail(p, "put", n, bad);
    }
    shmem_barrier_all();
}

/* The same for a get: the passive PE fills src, the active one reads it into dst. */
static inline void sb_verify_get(const sb_pes* p, char* dst, char* src, size_t n) {
    if (!p->active) memset(src, bench_pattern(n), n);
    memset(dst, 0, n);
    shmem_barrier_all();
    if (p->active) {
        shmem_getmem(dst, src, n, p->peer);
        size_t bad = bench_check(dst, n);
        if (bad) sb_fail(p, "get", n, bad);
    }
    shmem_barrier_all();
}
#endif

#endif
