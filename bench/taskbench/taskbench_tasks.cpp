// Task Bench style patterns (pattern.h) as tasks: interlace tasks and OpenMP tasks with
// depend clauses, interleaved in one process (bench/run_tasks.py computes METG).
//
//   taskbench_tasks [--patterns all|p1,p2] [--width W] [--steps T] [--workers w]
//                   [--iters 65536,16384,...] [--reps R] [--impl interlace,openmp]
//
// Point (t, i) is a task: out on cell (t mod 2, i), in on the cells of step t - 1 it
// depends on, so the runtime derives the graph (the write-after-read edges on the two
// alternating rows included). One line per measurement:
//   taskbench impl=I pattern=P width=W steps=T workers=w iters=N rep=R tasks=K
//             seconds=S ns_per_iter=C efficiency=E
// efficiency = tasks x iters x ns_per_iter / (workers x seconds): the share of the
// workers' time spent in busy work. A run whose result differs from the serial one
// prints an error and the program exits 1.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "pattern.h"

#ifdef BENCH_HAVE_INTERLACE_TASKS
#include <interlace/task/task.hpp>
#endif

namespace {

struct alignas(64) Cell {
  uint64_t v;
};

struct Grid {
  int pattern, width;
  long steps, iters;
  std::vector<Cell> cells;  // 2 rows of `width`
  Cell& at(long t, int i) { return cells[(t & 1) * width + i]; }
  uint64_t result() {
    uint64_t s = 0;
    for (int i = 0; i < tb_width(pattern, width, steps - 1); i++) s += at(steps - 1, i).v;
    return s;
  }
};

inline void point(Grid& g, long t, int i, const int* deps, int n) {
  tb_busy(g.iters);
  uint64_t s = 0;
  for (int d = 0; d < n; d++) s += g.at(t - 1, deps[d]).v;
  g.at(t, i).v = tb_value(t, i, s);
}

#ifdef BENCH_HAVE_INTERLACE_TASKS
double run_interlace(Grid& g, int workers) {
  namespace it = interlace::task;
  it::Options o;
  o.workers = workers;
  it::Executor ex(o);
  for (int k = 0; k < 16; k++) ex.spawn([] {});
  ex.taskwait();
  double t0 = tb_now();
  for (long t = 0; t < g.steps; t++) {
    int w = tb_width(g.pattern, g.width, t);
    for (int i = 0; i < w; i++) {
      int deps[TB_MAXDEPS];
      int n = tb_deps(g.pattern, g.width, t, i, deps);
      it::Dep d[TB_MAXDEPS + 1];
      d[0] = it::out(&g.at(t, i));
      for (int k = 0; k < n; k++) d[k + 1] = it::in(&g.at(t - 1, deps[k]));
      std::vector<int> dv(deps, deps + n);
      ex.spawn(std::span<const it::Dep>(d, n + 1), [&g, t, i, dv = std::move(dv)] {
        point(g, t, i, dv.data(), (int)dv.size());
      });
    }
  }
  ex.taskwait();
  return tb_now() - t0;
}
#endif

#ifdef _OPENMP
double run_openmp(Grid& g, int workers) {
  double elapsed = 0;
#pragma omp parallel num_threads(workers)
#pragma omp single
  {
    double t0 = tb_now();
    for (long t = 0; t < g.steps; t++) {
      int w = tb_width(g.pattern, g.width, t);
      for (int i = 0; i < w; i++) {
        int deps[TB_MAXDEPS];
        int n = tb_deps(g.pattern, g.width, t, i, deps);
        Cell* prev = &g.at(t - 1 < 0 ? 0 : t - 1, 0);
        (void)prev;  // used by the depend clause only
#pragma omp task firstprivate(t, i, n, deps, prev) \
    depend(out : g.cells[(t & 1) * g.width + i]) depend(iterator(k = 0 : n), in : prev[deps[k]])
        point(g, t, i, deps, n);
      }
    }
#pragma omp taskwait
    elapsed = tb_now() - t0;
  }
  return elapsed;
}
#endif

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  size_t a = 0;
  while (a <= s.size()) {
    size_t c = s.find(',', a);
    if (c == std::string::npos) c = s.size();
    if (c > a) v.push_back(s.substr(a, c - a));
    a = c + 1;
  }
  return v;
}

long positive(const std::string& opt, const std::string& v) {
  char* end;
  long x = strtol(v.c_str(), &end, 10);
  if (*end || x <= 0) {
    fprintf(stderr, "taskbench_tasks: %s %s: expected a positive integer\n", opt.c_str(), v.c_str());
    exit(2);
  }
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> patterns = {TB_TRIVIAL, TB_STENCIL, TB_NEAREST, TB_FFT, TB_TREE};
  int width = 0, workers = (int)std::thread::hardware_concurrency(), reps = 3;
  long steps = 100;
  std::vector<long> iters = {262144, 65536, 16384, 4096, 1024, 256, 64};
  std::vector<std::string> impls;
#ifdef BENCH_HAVE_INTERLACE_TASKS
  impls.push_back("interlace");
#endif
#ifdef _OPENMP
  impls.push_back("openmp");
#endif
  for (int k = 1; k < argc; k++) {
    std::string o = argv[k];
    if (k + 1 >= argc) { fprintf(stderr, "taskbench_tasks: %s needs a value\n", o.c_str()); return 2; }
    std::string v = argv[++k];
    if (o == "--patterns") {
      if (v == "all") continue;
      patterns.clear();
      for (auto& n : split(v)) {
        int p = tb_pattern(n.c_str());
        if (p < 0) { fprintf(stderr, "taskbench_tasks: unknown pattern '%s'\n", n.c_str()); return 2; }
        patterns.push_back(p);
      }
    } else if (o == "--width") width = (int)positive(o, v);
    else if (o == "--steps") steps = positive(o, v);
    else if (o == "--workers") workers = (int)positive(o, v);
    else if (o == "--reps") reps = (int)positive(o, v);
    else if (o == "--iters") { iters.clear(); for (auto& x : split(v)) iters.push_back(positive(o, x)); }
    else if (o == "--impl") impls = split(v);
    else { fprintf(stderr, "taskbench_tasks: unknown option %s\n", o.c_str()); return 2; }
  }
  if (width == 0) width = 2 * workers;
  for (auto& i : impls)
    if (i != "interlace" && i != "openmp") {
      fprintf(stderr, "taskbench_tasks: implementation '%s' unknown\n", i.c_str());
      return 2;
    }
  for (int p : patterns)
    if ((p == TB_FFT || p == TB_TREE) && (width & (width - 1))) {
      fprintf(stderr, "taskbench_tasks: %s needs a power-of-two width, not %d\n", tb_names[p], width);
      return 2;
    }
  double ns = tb_calibrate();
  int bad = 0;
  for (int p : patterns) {
    uint64_t want = tb_serial(p, width, steps);
    long tasks = tb_total_tasks(p, width, steps);
    for (long it : iters)
      for (int r = 0; r < reps; r++)
        for (auto& impl : impls) {
          Grid g{p, width, steps, it, std::vector<Cell>(2 * width)};
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
          double s = 0;
#ifdef BENCH_HAVE_INTERLACE_TASKS
          if (impl == "interlace") s = run_interlace(g, workers);
#endif
#ifdef _OPENMP
          if (impl == "openmp") s = run_openmp(g, workers);
#endif
          if (g.result() != want) {
            fprintf(stderr, "taskbench_tasks: %s %s iters=%ld: result differs from the serial run\n",
                    impl.c_str(), tb_names[p], it);
            bad = 1;
          }
          printf("taskbench impl=%s pattern=%s width=%d steps=%ld workers=%d iters=%ld rep=%d tasks=%ld "
                 "seconds=%.6f ns_per_iter=%.4f efficiency=%.4f\n",
                 impl.c_str(), tb_names[p], width, steps, workers, it, r, tasks, s, ns,
                 tasks * it * ns * 1e-9 / (workers * s));
          fflush(stdout);
        }
  }
  return bad;
}
