/* Task Bench style dependence patterns (bench/run_tasks.py, docs/benchmarks.md): a grid
 * of `width` points x `steps` time steps; point (t, i) runs after the points of step
 * t - 1 it depends on, then does `iters` rounds of busy work. Shared by the task
 * versions (taskbench_tasks.cpp) and the MPI one (taskbench_mpi.c).
 *   trivial    no dependencies
 *   stencil_1d i-1, i, i+1
 *   nearest    i-2 .. i+2 (5 neighbours)
 *   fft        i and i xor 2^((t-1) mod log2 width): a butterfly
 *   tree       a binary tree that widens from 1 point to `width` (i after i/2) and
 *              narrows back (i after 2i and 2i+1), over and over
 * fft and tree need a power-of-two width. Every point's value is a hash of its inputs,
 * so the sum of the last step's values checks an execution against the serial one. */
#ifndef TASKBENCH_PATTERN_H
#define TASKBENCH_PATTERN_H
#if !defined(__cplusplus) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L  /* clock_gettime under -std=c11 */
#endif
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { TB_TRIVIAL, TB_STENCIL, TB_NEAREST, TB_FFT, TB_TREE, TB_NPATTERNS };
static const char* const tb_names[TB_NPATTERNS] = {"trivial", "stencil_1d", "nearest", "fft", "tree"};
#define TB_MAXDEPS 5

static int tb_pattern(const char* name) {
  for (int p = 0; p < TB_NPATTERNS; p++)
    if (!strcmp(name, tb_names[p])) return p;
  return -1;
}

static int tb_log2(int w) {
  int l = 0;
  while ((1 << l) < w) l++;
  return l;
}

/* Points active at step t: 0 .. tb_width() - 1. */
static int tb_width(int p, int width, long t) {
  if (p != TB_TREE) return width;
  int L = tb_log2(width);
  if (L == 0) return 1;
  long ph = t % (2 * L);
  return ph <= L ? 1 << ph : 1 << (2 * L - ph);
}

/* The points of step t - 1 that point (t, i) depends on; returns how many. */
static int tb_deps(int p, int width, long t, int i, int* out) {
  if (t == 0) return 0;
  int n = 0;
  switch (p) {
    case TB_TRIVIAL: break;
    case TB_STENCIL:
    case TB_NEAREST: {
      int r = p == TB_STENCIL ? 1 : 2;
      for (int j = i - r; j <= i + r; j++)
        if (j >= 0 && j < width) out[n++] = j;
      break;
    }
    case TB_FFT: {
      int L = tb_log2(width);
      out[n++] = i;
      if (L > 0) out[n++] = i ^ (1 << ((t - 1) % L));
      break;
    }
    case TB_TREE: {
      int L = tb_log2(width);
      long ph = L ? t % (2 * L) : 0;
      if (L == 0) out[n++] = 0;
      else if (ph >= 1 && ph <= L) out[n++] = i >> 1;
      else { out[n++] = 2 * i; out[n++] = 2 * i + 1; }
      break;
    }
  }
  return n;
}

static inline uint64_t tb_value(long t, int i, uint64_t in_sum) {
  uint64_t z = in_sum + 0x9E3779B97F4A7C15ull * (uint64_t)(t * 1000003 + i + 1);
  z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
  return z ^ (z >> 29);
}

/* `iters` dependent multiply-adds: compute-bound work the compiler cannot remove. */
static inline void tb_busy(long iters) {
  uint64_t x = (uint64_t)iters;
  for (long k = 0; k < iters; k++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    __asm__ volatile("" : "+r"(x));
  }
}

static double tb_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ns per busy-work iteration on this core: the best of a few tries. */
static double tb_calibrate(void) {
  double best = 1e9;
  for (int k = 0; k < 7; k++) {
    double t0 = tb_now();
    tb_busy(1 << 20);
    double d = (tb_now() - t0) / (1 << 20) * 1e9;
    if (d < best) best = d;
  }
  return best;
}

/* Serial execution: the sum of the last step's values. */
static uint64_t tb_serial(int p, int width, long steps) {
  uint64_t buf[2][width > 0 ? width : 1];
  int deps[TB_MAXDEPS];
  for (long t = 0; t < steps; t++) {
    int w = tb_width(p, width, t);
    for (int i = 0; i < w; i++) {
      uint64_t s = 0;
      int n = tb_deps(p, width, t, i, deps);
      for (int d = 0; d < n; d++) s += buf[(t - 1) & 1][deps[d]];
      buf[t & 1][i] = tb_value(t, i, s);
    }
  }
  uint64_t sum = 0;
  for (int i = 0; i < tb_width(p, width, steps - 1); i++) sum += buf[(steps - 1) & 1][i];
  return sum;
}

static long tb_total_tasks(int p, int width, long steps) {
  long n = 0;
  for (long t = 0; t < steps; t++) n += tb_width(p, width, t);
  return n;
}
#endif
