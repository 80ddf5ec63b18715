// Per-task overhead: interlace tasks against OpenMP tasks with depend clauses (libgomp)
// and oneTBB's flow graph, in one process, interleaved (bench/run_tasks.py; figures in
// docs/benchmarks.md).
//
//   task_overhead [--tasks N] [--reps R] [--workers 1,2] [--deps 0,1,3,8] [--impl a,b]
//
// The task graph: M slots; task t with k dependencies declares inout on slot t % M and,
// for k > 1, in on k - 1 slots at distances 256, 512, ... ahead (last written M - d
// tasks earlier). So every dependency is a real one (read after write and write after
// read), yet about 256 tasks are ready at any time: the runtime's bookkeeping is
// measured, not a serial chain. Bodies are a few instructions; every implementation's
// final slot contents are compared with a serial execution of the same graph.
//
// One line per measurement:
//   task_overhead impl=I workers=W deps=K rep=R tasks=N seconds=S ns_per_task=X
// OpenMP: one parallel region of W threads, one thread spawns every task, taskwait.
// TBB: the graph is built (one continue_node per task, an edge per dependency found the
// same way the other runtimes find them) and then its roots are started; the time covers
// both, as building and tracking the graph is the other runtimes' per-task work too.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#ifdef BENCH_HAVE_INTERLACE_TASKS
#include <interlace/task/task.hpp>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef BENCH_HAVE_TBB
#include <tbb/flow_graph.h>
#include <tbb/global_control.h>
#endif

namespace {

constexpr long M = 4096;
constexpr long STRIDE = 256;
struct alignas(64) Slot {
  uint64_t v;
};
Slot S[M];
// The spawning thread's loop alone (interlace and OpenMP: the spawn calls; TBB: building
// the graph), to tell creation costs from scheduling and execution.
double spawn_start, spawn_end;

// Slot indices of task t's accesses: [0] is written (inout), the rest are read.
inline int task_slots(long t, int k, long* s) {
  if (k == 0) return 0;
  s[0] = t % M;
  for (int d = 1; d < k; d++) s[d] = (t + d * STRIDE) % M;
  return k;
}

inline void body(long t, int k) {
  long s[8];
  int n = task_slots(t, k, s);
  if (n == 0) {
    __atomic_fetch_add(&S[t % M].v, 1, __ATOMIC_RELAXED);  // tasks without deps may overlap
    return;
  }
  uint64_t acc = S[s[0]].v * 3 + (uint64_t)t;
  for (int d = 1; d < n; d++) acc += S[s[d]].v;
  S[s[0]].v = acc;
}

void reset() {
  for (long i = 0; i < M; i++) S[i].v = (uint64_t)i;
}

uint64_t checksum() {
  uint64_t h = 1469598103934665603ull;
  for (long i = 0; i < M; i++) h = (h ^ S[i].v) * 1099511628211ull;
  return h;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double run_serial(long n, int k) {
  double t0 = spawn_start = now();
  for (long t = 0; t < n; t++) body(t, k);
  return now() - t0;
}

#ifdef BENCH_HAVE_INTERLACE_TASKS
double run_interlace(long n, int k, int workers) {
  interlace::task::Options o;
  o.workers = workers;
  interlace::task::Executor ex(o);
  for (int i = 0; i < 64; i++) ex.spawn([] {});  // workers started before the clock
  ex.taskwait();
  double t0 = spawn_start = now();
  for (long t = 0; t < n; t++) {
    long s[8];
    interlace::task::Dep deps[8];
    int nd = task_slots(t, k, s);
    for (int d = 0; d < nd; d++)
      deps[d] = {&S[s[d]], sizeof(Slot), d == 0 ? interlace::task::Access::inout
                                                : interlace::task::Access::in};
    ex.spawn(std::span<const interlace::task::Dep>(deps, nd), [t, k] { body(t, k); });
  }
  spawn_end = now();
  ex.taskwait();
  return now() - t0;
}
#endif

#ifdef _OPENMP
double run_openmp(long n, int k, int workers) {
  double elapsed = 0;
#pragma omp parallel num_threads(workers)
#pragma omp single
  {
    double t0 = spawn_start = now();
    for (long t = 0; t < n; t++) {
      long s[8];
      task_slots(t, k, s);
      switch (k) {
        case 0:
#pragma omp task firstprivate(t, k)
          body(t, k);
          break;
        case 1:
#pragma omp task firstprivate(t, k) depend(inout : S[s[0]])
          body(t, k);
          break;
        case 3:
#pragma omp task firstprivate(t, k) depend(inout : S[s[0]]) depend(in : S[s[1]], S[s[2]])
          body(t, k);
          break;
        case 8:
#pragma omp task firstprivate(t, k) depend(inout : S[s[0]]) \
    depend(in : S[s[1]], S[s[2]], S[s[3]], S[s[4]], S[s[5]], S[s[6]], S[s[7]])
          body(t, k);
          break;
      }
    }
    spawn_end = now();
#pragma omp taskwait
    elapsed = now() - t0;
  }
  return elapsed;
}
#endif

#ifdef BENCH_HAVE_TBB
double run_tbb(long n, int k, int workers) {
  using namespace tbb::flow;
  tbb::global_control gc(tbb::global_control::max_allowed_parallelism, workers);
  std::vector<std::unique_ptr<continue_node<continue_msg>>> nodes;
  nodes.reserve(n);
  std::vector<long> last_writer(M, -1);
  std::vector<std::vector<long>> readers(M);
  std::vector<long> roots, preds;
  double elapsed;
  {
    graph g;
    double t0 = spawn_start = now();
    for (long t = 0; t < n; t++) {
      nodes.emplace_back(new continue_node<continue_msg>(
          g, [t, k](const continue_msg&) { body(t, k); }));
      long s[8];
      int nd = task_slots(t, k, s);
      preds.clear();
      for (int d = 0; d < nd; d++) {
        if (last_writer[s[d]] >= 0) preds.push_back(last_writer[s[d]]);
        if (d == 0) {  // a write waits for the reads since the last write too
          preds.insert(preds.end(), readers[s[0]].begin(), readers[s[0]].end());
          readers[s[0]].clear();
          last_writer[s[0]] = t;
        } else {
          readers[s[d]].push_back(t);
        }
      }
      std::sort(preds.begin(), preds.end());
      preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
      for (long p : preds) make_edge(*nodes[p], *nodes[t]);
      if (preds.empty()) roots.push_back(t);
    }
    spawn_end = now();  // the graph is built: its "spawning"
    for (long r : roots) nodes[r]->try_put(continue_msg());
    g.wait_for_all();
    elapsed = now() - t0;
    nodes.clear();  // before the graph goes
  }
  return elapsed;
}
#endif

std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  for (const char* p = s; *p;) {
    char* end;
    long x = strtol(p, &end, 10);
    if (end == p || x < 0) {
      fprintf(stderr, "task_overhead: bad number in list '%s'\n", s);
      exit(2);
    }
    v.push_back((int)x);
    p = *end == ',' ? end + 1 : end;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 50000;
  int reps = 5;
  int ncpu = (int)std::thread::hardware_concurrency();
  std::vector<int> workers, deps = {0, 1, 3, 8};
  for (int w = 1; w <= ncpu; w *= 2) workers.push_back(w);
  if (workers.back() != ncpu) workers.push_back(ncpu);
  std::vector<std::string> impls;
#ifdef BENCH_HAVE_INTERLACE_TASKS
  impls.push_back("interlace");
#endif
#ifdef _OPENMP
  impls.push_back("openmp");
#endif
#ifdef BENCH_HAVE_TBB
  impls.push_back("tbb");
#endif
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (i + 1 >= argc) { fprintf(stderr, "task_overhead: %s needs a value\n", a.c_str()); return 2; }
    const char* v = argv[++i];
    if (a == "--tasks") n = atol(v);
    else if (a == "--reps") reps = atoi(v);
    else if (a == "--workers") workers = parse_list(v);
    else if (a == "--deps") deps = parse_list(v);
    else if (a == "--impl") {
      std::vector<std::string> want;
      for (const char* p = v; *p;) {
        const char* c = strchr(p, ',');
        want.emplace_back(p, c ? c - p : strlen(p));
        p = c ? c + 1 : p + strlen(p);
      }
      for (auto& w : want)
        if (std::find(impls.begin(), impls.end(), w) == impls.end()) {
          fprintf(stderr, "task_overhead: implementation '%s' is not built in\n", w.c_str());
          return 2;
        }
      impls = want;
    } else { fprintf(stderr, "task_overhead: unknown option %s\n", a.c_str()); return 2; }
  }
  for (int k : deps)
    if (k != 0 && k != 1 && k != 3 && k != 8) {
      fprintf(stderr, "task_overhead: --deps %d: only 0, 1, 3 and 8 are built in\n", k);
      return 2;
    }
  if (n <= 0 || reps <= 0) { fprintf(stderr, "task_overhead: --tasks and --reps must be positive\n"); return 2; }

  int bad = 0;
  for (int r = 0; r < reps; r++)
    for (int w : workers)
      for (int k : deps) {
        reset();
        double ts = run_serial(n, k);
        uint64_t want = checksum();
        printf("task_overhead impl=serial workers=1 deps=%d rep=%d tasks=%ld seconds=%.6f ns_per_task=%.1f\n",
               k, r, n, ts, ts / n * 1e9);
        for (const auto& impl : impls) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the last one's spinners rest
          reset();
          double s = 0;
#ifdef BENCH_HAVE_INTERLACE_TASKS
          if (impl == "interlace") s = run_interlace(n, k, w);
#endif
#ifdef _OPENMP
          if (impl == "openmp") s = run_openmp(n, k, w);
#endif
#ifdef BENCH_HAVE_TBB
          if (impl == "tbb") s = run_tbb(n, k, w);
#endif
          uint64_t got = checksum();
          if (got != want) {
            fprintf(stderr, "task_overhead: %s workers=%d deps=%d gave a different result than the serial run\n",
                    impl.c_str(), w, k);
            bad = 1;
          }
          printf("task_overhead impl=%s workers=%d deps=%d rep=%d tasks=%ld seconds=%.6f ns_per_task=%.1f "
                 "spawn_ns_per_task=%.1f\n",
                 impl.c_str(), w, k, r, n, s, s / n * 1e9, (spawn_end - spawn_start) / n * 1e9);
          fflush(stdout);
        }
      }
  return bad;
}
