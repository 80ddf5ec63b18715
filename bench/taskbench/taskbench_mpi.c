/* Task Bench style patterns (pattern.h) in MPI: each rank owns a block of columns
 * (width / ranks points), one thread per rank; a dependency on another rank's point
 * becomes one message per (consumer point, dependency), sent with MPI_Isend as soon as
 * the step that made the value is done. Standard MPI: built against interlace's mpi.h
 * (bench/taskbench/CMakeLists.txt) and, unchanged, with mpicc.openmpi.
 *
 *   interlace run -n 2 taskbench_mpi [--patterns all|p1,p2] [--width W] [--steps T]
 *                                    [--iters 65536,...] [--reps R]
 * Prints, on rank 0, the same lines as taskbench_tasks with impl=mpi and workers=ranks. */
#include "pattern.h"  /* first: it sets the feature macros */

#include <mpi.h>
#include <stdlib.h>

typedef struct {
  int pattern, width, rank, size, lo, hi;
  long steps, iters;
} tb_run;

static int owner(const tb_run* r, int i) { return i / (r->width / r->size); }

/* Runs the grid; returns the seconds of the slowest rank (on rank 0) and the result. */
static double run(const tb_run* r, uint64_t* result) {
  int W = r->width;
  uint64_t* prev = calloc(W, sizeof(uint64_t));
  uint64_t* cur = calloc(W, sizeof(uint64_t));
  uint64_t* inbox = calloc((size_t)W * TB_MAXDEPS, sizeof(uint64_t));
  MPI_Request* req = malloc(sizeof(MPI_Request) * (size_t)W * TB_MAXDEPS * 2);
  int deps[TB_MAXDEPS];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = tb_now();
  for (long t = 0; t < r->steps; t++) {
    int w = tb_width(r->pattern, W, t), nreq = 0;
    if (t > 0) {
      int wprev = tb_width(r->pattern, W, t - 1);
      /* receives for my points' remote inputs, then sends of my last values to others */
      for (int i = r->lo; i < r->hi && i < w; i++) {
        int n = tb_deps(r->pattern, W, t, i, deps);
        for (int d = 0; d < n; d++)
          if (owner(r, deps[d]) != r->rank)
            MPI_Irecv(&inbox[i * TB_MAXDEPS + d], 1, MPI_UINT64_T, owner(r, deps[d]), deps[d],
                      MPI_COMM_WORLD, &req[nreq++]);
      }
      for (int i = 0; i < w; i++) {
        if (owner(r, i) == r->rank) continue;
        int n = tb_deps(r->pattern, W, t, i, deps);
        for (int d = 0; d < n; d++)
          if (owner(r, deps[d]) == r->rank && deps[d] < wprev)
            MPI_Isend(&prev[deps[d]], 1, MPI_UINT64_T, owner(r, i), deps[d], MPI_COMM_WORLD, &req[nreq++]);
      }
      MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    }
    for (int i = r->lo; i < r->hi && i < w; i++) {
      tb_busy(r->iters);
      int n = tb_deps(r->pattern, W, t, i, deps);
      uint64_t s = 0;
      for (int d = 0; d < n; d++)
        s += owner(r, deps[d]) == r->rank ? prev[deps[d]] : inbox[i * TB_MAXDEPS + d];
      cur[i] = tb_value(t, i, s);
    }
    uint64_t* x = prev; prev = cur; cur = x;
  }
  double mine = tb_now() - t0, slowest = 0;
  uint64_t part = 0, total = 0;
  int wl = tb_width(r->pattern, W, r->steps - 1);
  for (int i = r->lo; i < r->hi && i < wl; i++) part += prev[i];
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&part, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  *result = total;
  free(prev); free(cur); free(inbox); free(req);
  return slowest;
}

static long positive(const char* opt, const char* v) {
  char* end;
  long x = strtol(v, &end, 10);
  if (*end || x <= 0) {
    fprintf(stderr, "taskbench_mpi: %s %s: expected a positive integer\n", opt, v);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  tb_run r = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &r.size);
  int patterns[TB_NPATTERNS] = {TB_TRIVIAL, TB_STENCIL, TB_NEAREST, TB_FFT, TB_TREE}, np = TB_NPATTERNS;
  long iters[32] = {262144, 65536, 16384, 4096, 1024, 256, 64};
  int ni = 7, reps = 3;
  r.steps = 100;
  for (int k = 1; k < argc; k++) {
    const char* o = argv[k];
    if (k + 1 >= argc) { fprintf(stderr, "taskbench_mpi: %s needs a value\n", o); MPI_Abort(MPI_COMM_WORLD, 2); }
    char* v = argv[++k];
    if (!strcmp(o, "--patterns")) {
      if (!strcmp(v, "all")) continue;
      np = 0;
      for (char* s = strtok(v, ","); s && np < TB_NPATTERNS; s = strtok(NULL, ",")) {
        if ((patterns[np++] = tb_pattern(s)) < 0) {
          fprintf(stderr, "taskbench_mpi: unknown pattern '%s'\n", s);
          MPI_Abort(MPI_COMM_WORLD, 2);
        }
      }
    } else if (!strcmp(o, "--width")) r.width = (int)positive(o, v);
    else if (!strcmp(o, "--steps")) r.steps = positive(o, v);
    else if (!strcmp(o, "--reps")) reps = (int)positive(o, v);
    else if (!strcmp(o, "--iters")) {
      ni = 0;
      for (char* s = strtok(v, ","); s && ni < 32; s = strtok(NULL, ",")) iters[ni++] = positive(o, s);
    } else { fprintf(stderr, "taskbench_mpi: unknown option %s\n", o); MPI_Abort(MPI_COMM_WORLD, 2); }
  }
  if (r.width == 0) r.width = 2 * r.size;
  if (r.width % r.size) {
    fprintf(stderr, "taskbench_mpi: width %d does not divide among %d ranks\n", r.width, r.size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  r.lo = r.rank * (r.width / r.size);
  r.hi = r.lo + r.width / r.size;
  double ns = tb_calibrate();
  int bad = 0;
  for (int pi = 0; pi < np; pi++) {
    r.pattern = patterns[pi];
    if ((r.pattern == TB_FFT || r.pattern == TB_TREE) && (r.width & (r.width - 1))) {
      fprintf(stderr, "taskbench_mpi: %s needs a power-of-two width, not %d\n", tb_names[r.pattern], r.width);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint64_t want = tb_serial(r.pattern, r.width, r.steps);
    long tasks = tb_total_tasks(r.pattern, r.width, r.steps);
    for (int ii = 0; ii < ni; ii++)
      for (int rep = 0; rep < reps; rep++) {
        r.iters = iters[ii];
        uint64_t got;
        double s = run(&r, &got);
        if (r.rank != 0) continue;
        if (got != want) {
          fprintf(stderr, "taskbench_mpi: %s iters=%ld: result differs from the serial run\n",
                  tb_names[r.pattern], r.iters);
          bad = 1;
        }
        printf("taskbench impl=mpi pattern=%s width=%d steps=%ld workers=%d iters=%ld rep=%d tasks=%ld "
               "seconds=%.6f ns_per_iter=%.4f efficiency=%.4f\n",
               tb_names[r.pattern], r.width, r.steps, r.size, r.iters, rep, tasks, s, ns,
               tasks * r.iters * ns * 1e-9 / (r.size * s));
        fflush(stdout);
      }
  }
  MPI_Finalize();
  return bad;
}
