/* N-body (seed paper section V, Algorithm 1): what every version shares.
 *
 * Particles are split into blocks of `bs`; calculate_forces(i, j) adds the pull of
 * block i's particles on block j's into forces[j]; update_particles(i) advances block
 * i by one Euler step and clears its forces. Float32 as in the paper, with a softening
 * length so that coincident particles (and a particle with itself) give no infinity.
 *
 * Every version prints one line
 *   nbody version=V ranks=P n=N bs=B iters=T seconds=S gpairs=G checksum=C
 * (Gpairs/s = n^2 x iterations / seconds, the paper's measure) and, with --check,
 *   check max_rel_err=E ok|FAIL
 * comparing its final state with nb_serial_run() on the same input (docs/nbody.md). */
#ifndef NBODY_COMMON_H
#define NBODY_COMMON_H
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* clock_gettime under -std=c11 */
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NB_G 1.0f
#define NB_EPS2 1e-2f   /* softening length squared */
#define NB_DT 1e-3f
#define NB_TOL 1e-3     /* --check bound: max relative error against the serial run */

typedef struct {
  float x, y, z, m;
  float vx, vy, vz, pad;
} nb_particle;

typedef struct {
  long n, bs, iters;
  unsigned long long seed;
  int check;
} nb_args;

static double nb_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void nb_usage(const char* prog, const char* why) {
  fprintf(stderr, "%s: %s\nusage: %s [--n particles] [--bs block] [--iters T] [--seed S] [--check]\n",
          prog, why, prog);
  exit(2);
}

/* Parses the options; a bad value is named and ends the program (exit 2). `parts` is
 * the number of equal shares the blocks are divided into (the rank count). */
static nb_args nb_parse(int argc, char** argv, long parts) {
  nb_args a = {4096, 256, 4, 42, 0};
  for (int k = 1; k < argc; k++) {
    const char* o = argv[k];
    if (!strcmp(o, "--check")) { a.check = 1; continue; }
    if (k + 1 >= argc) nb_usage(argv[0], "missing value after an option");
    char* end = NULL;
    long long v = strtoll(argv[k + 1], &end, 10);
    if (*end || v <= 0) {
      fprintf(stderr, "%s: %s %s: expected a positive integer\n", argv[0], o, argv[k + 1]);
      exit(2);
    }
    if (!strcmp(o, "--n")) a.n = v;
    else if (!strcmp(o, "--bs")) a.bs = v;
    else if (!strcmp(o, "--iters")) a.iters = v;
    else if (!strcmp(o, "--seed")) a.seed = (unsigned long long)v;
    else nb_usage(argv[0], o);
    k++;
  }
  if (a.n % a.bs) {
    fprintf(stderr, "%s: n=%ld is not a multiple of the block size bs=%ld\n", argv[0], a.n, a.bs);
    exit(2);
  }
  if ((a.n / a.bs) % parts) {
    fprintf(stderr, "%s: %ld blocks do not divide among %ld ranks\n", argv[0], a.n / a.bs, parts);
    exit(2);
  }
  return a;
}

/* splitmix64: the same stream on every machine and in every version. */
static float nb_rand(unsigned long long* s) {
  unsigned long long z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (float)((z >> 40) * (1.0 / 16777216.0));  /* [0, 1) */
}

static void nb_init(nb_particle* p, long n, unsigned long long seed) {
  unsigned long long s = seed;
  for (long k = 0; k < n; k++) {
    p[k].x = 2 * nb_rand(&s) - 1;
    p[k].y = 2 * nb_rand(&s) - 1;
    p[k].z = 2 * nb_rand(&s) - 1;
    p[k].m = (0.5f + nb_rand(&s)) / (float)n;  /* total mass about 1 */
    p[k].vx = p[k].vy = p[k].vz = p[k].pad = 0;
  }
}

/* forces of block j (bs x 3 floats) += pull of block i on block j. Block i is copied to
 * structure-of-arrays form first so that the inner loop vectorises (bs ops against bs^2). */
static void nb_calculate_forces(const nb_particle* pi, const nb_particle* pj, float* fj, long bs) {
  float xs[bs], ys[bs], zs[bs], ms[bs];
  for (long a = 0; a < bs; a++) { xs[a] = pi[a].x; ys[a] = pi[a].y; zs[a] = pi[a].z; ms[a] = pi[a].m; }
  for (long b = 0; b < bs; b++) {
    const float px = pj[b].x, py = pj[b].y, pz = pj[b].z;
    float fx = 0, fy = 0, fz = 0;
#pragma omp simd reduction(+ : fx, fy, fz)
    for (long a = 0; a < bs; a++) {
      float dx = xs[a] - px, dy = ys[a] - py, dz = zs[a] - pz;
      float r2 = dx * dx + dy * dy + dz * dz + NB_EPS2;
      float inv = 1.0f / sqrtf(r2);
      float s = ms[a] * inv * inv * inv;
      fx += s * dx; fy += s * dy; fz += s * dz;
    }
    const float gm = NB_G * pj[b].m;
    fj[3 * b] += gm * fx; fj[3 * b + 1] += gm * fy; fj[3 * b + 2] += gm * fz;
  }
}

/* One Euler step of block i; clears its forces for the next iteration. */
static void nb_update_particles(nb_particle* p, float* f, long bs) {
  for (long b = 0; b < bs; b++) {
    float inv_m = 1.0f / p[b].m;
    p[b].vx += NB_DT * f[3 * b] * inv_m;
    p[b].vy += NB_DT * f[3 * b + 1] * inv_m;
    p[b].vz += NB_DT * f[3 * b + 2] * inv_m;
    p[b].x += NB_DT * p[b].vx; p[b].y += NB_DT * p[b].vy; p[b].z += NB_DT * p[b].vz;
    f[3 * b] = f[3 * b + 1] = f[3 * b + 2] = 0;
  }
}

/* The serial reference (version a): the same block loops on one core. */
static void nb_serial_run(nb_particle* p, float* f, const nb_args* a) {
  long nb = a->n / a->bs, bs = a->bs;
  memset(f, 0, sizeof(float) * 3 * a->n);
  for (long t = 0; t < a->iters; t++) {
    for (long i = 0; i < nb; i++)
      for (long j = 0; j < nb; j++) nb_calculate_forces(p + i * bs, p + j * bs, f + 3 * j * bs, bs);
    for (long i = 0; i < nb; i++) nb_update_particles(p + i * bs, f + 3 * i * bs, bs);
  }
}

static double nb_checksum(const nb_particle* p, long n) {
  double s = 0;
  for (long k = 0; k < n; k++) s += p[k].x + 2.0 * p[k].y + 3.0 * p[k].z;
  return s;
}

/* Max over particles of |position error| / (largest |position|) and the same for the
 * velocities: relative to the system's scale, so a particle near the origin (or at
 * rest) does not turn a rounding difference into a huge ratio. */
static double nb_max_rel_err(const nb_particle* p, const nb_particle* ref, long n) {
  double pscale = 0, vscale = 0, perr = 0, verr = 0;
  for (long k = 0; k < n; k++) {
    double pr = sqrt((double)ref[k].x * ref[k].x + (double)ref[k].y * ref[k].y + (double)ref[k].z * ref[k].z);
    double vr = sqrt((double)ref[k].vx * ref[k].vx + (double)ref[k].vy * ref[k].vy +
                     (double)ref[k].vz * ref[k].vz);
    double dx = p[k].x - ref[k].x, dy = p[k].y - ref[k].y, dz = p[k].z - ref[k].z;
    double ux = p[k].vx - ref[k].vx, uy = p[k].vy - ref[k].vy, uz = p[k].vz - ref[k].vz;
    double pe = sqrt(dx * dx + dy * dy + dz * dz), ve = sqrt(ux * ux + uy * uy + uz * uz);
    if (pr > pscale) pscale = pr;
    if (vr > vscale) vscale = vr;
    if (pe > perr || pe != pe) perr = pe;
    if (ve > verr || ve != ve) verr = ve;
  }
  double e1 = pscale > 0 ? perr / pscale : perr, e2 = vscale > 0 ? verr / vscale : verr;
  return e1 > e2 ? e1 : e2;
}

/* Prints the result line (and the check line); returns the exit status. */
static int nb_report(const char* version, int ranks, const nb_args* a, double seconds,
                     const nb_particle* p) {
  double pairs = (double)a->n * (double)a->n * (double)a->iters;
  printf("nbody version=%s ranks=%d n=%ld bs=%ld iters=%ld seconds=%.6f gpairs=%.4f checksum=%.9e\n",
         version, ranks, a->n, a->bs, a->iters, seconds, pairs / seconds * 1e-9, nb_checksum(p, a->n));
  if (!a->check) return 0;
  nb_particle* ref = malloc(sizeof(nb_particle) * a->n);
  float* f = malloc(sizeof(float) * 3 * a->n);
  if (!ref || !f) { fprintf(stderr, "nbody: out of memory for the check\n"); return 1; }
  nb_init(ref, a->n, a->seed);
  nb_serial_run(ref, f, a);
  double e = nb_max_rel_err(p, ref, a->n);
  int ok = e <= NB_TOL;
  printf("check max_rel_err=%.3e %s\n", e, ok ? "ok" : "FAIL");
  free(ref);
  free(f);
  return ok ? 0 : 1;
}

#endif
