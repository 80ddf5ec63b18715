/* GESUMMV (y = alpha*A*x + beta*B*x) shared by the two MPMD programs: problem size,
 * the generated inputs and the GEMV row kernel. Both ranks generate the same inputs
 * from a formula instead of reading files, so the example needs no data. */
#ifndef GESUMMV_COMMON_H
#define GESUMMV_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GESUMMV_ALPHA 1.5f
#define GESUMMV_BETA -0.75f
#define GESUMMV_PORT 0

static inline int gesummv_size(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  if (n < 1) {
    fprintf(stderr, "gesummv: N must be a positive integer, got '%s'\n", argv[1]);
    exit(2);
  }
  return n;
}

/* Small integers over 8: every product and partial sum is exact in float, so the
 * distributed and the single-rank results must agree to the last bit. */
static inline float matrix_a(int i, int j) { return (float)((i * 7 + j * 3) % 11 - 5) / 8.0f; }
static inline float matrix_b(int i, int j) { return (float)((i * 5 + j * 13) % 9 - 4) / 8.0f; }
static inline float vector_x(int j) { return (float)(j % 7 - 3) / 8.0f; }

static inline float* gesummv_matrix(int n, float (*f)(int, int)) {
  float* m = (float*)malloc((size_t)n * (size_t)n * sizeof(float));
  if (!m) {
    fprintf(stderr, "gesummv: out of memory for a %d x %d matrix\n", n, n);
    exit(2);
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m[(size_t)i * n + j] = f(i, j);
  return m;
}

static inline float* gesummv_vector(int n) {
  float* x = (float*)malloc((size_t)n * sizeof(float));
  for (int j = 0; j < n; ++j) x[j] = vector_x(j);
  return x;
}

/* One GEMV row: what an HLS GEMV kernel produces per output element. */
static inline float gemv_row(const float* m, const float* x, int n, int i, float scale) {
  float acc = 0.0f;
  const float* row = m + (size_t)i * n;
  for (int j = 0; j < n; ++j) acc += row[j] * x[j];
  return scale * acc;
}

static inline double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif
