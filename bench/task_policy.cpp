// Per-task overhead of the task Executor under its scheduling policies, for choosing
// the default (docs/tasks.md, "Scheduling policy"). Not a comparison with other
// runtimes (bench/ has those). Usage: task_policy [tasks] [max workers]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "interlace/task/task.hpp"
#include "task/task_impl.hpp"

using namespace interlace::task;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

volatile int g_sink;

// ns per task: spawn n tasks from the main thread, then taskwait.
double run(int workers, int n, int pattern) {
  Executor ex({.workers = workers});
  std::vector<int> cells(static_cast<size_t>(n) + 8);
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = now_s();
    for (int i = 0; i < n; ++i) {
      switch (pattern) {
        case 0: ex.spawn([] { g_sink = 1; }); break;                            // no deps
        case 1: ex.spawn({inout(&cells[i])}, [] { g_sink = 1; }); break;        // 1 dep, independent
        case 2: ex.spawn({inout(&cells[0])}, [] { g_sink = 1; }); break;        // 1 dep, one chain
        case 3: ex.spawn({in(&cells[i % 8]), inout(&cells[8 + i])}, [] { g_sink = 1; }); break;
      }
    }
    ex.taskwait();
    best = std::min(best, (now_s() - t0) * 1e9 / n);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int maxw = argc > 2 ? std::atoi(argv[2]) : 2;
  const char* names[] = {"0 deps", "1 dep (independent)", "1 dep (chain)", "2 deps (shared in)"};
  const char* policies[] = {"fifo", "lifo", "fifo+successor"};
  std::printf("policy,workers,pattern,ns_per_task\n");
  for (int p = 0; p < 3; ++p) {
    detail::set_policy(static_cast<detail::Policy>(p));
    for (int w = 1; w <= maxw; w *= 2)
      for (int pat = 0; pat < 4; ++pat)
        std::printf("%s,%d,%s,%.0f\n", policies[p], w, names[pat], run(w, n, pat));
  }
  return 0;
}
