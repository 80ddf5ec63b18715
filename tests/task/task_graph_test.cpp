// Random task graphs checked against a serial execution: every access folds the
// task's id into the bytes it touches (a hash chain per element), so any ordering
// mistake among conflicting tasks changes the final state.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <vector>

#include "interlace/task/task.hpp"

using namespace interlace::task;

namespace {

constexpr int kArrays = 4;
constexpr int kElems = 256;

struct Access1 {
  int array, lo, hi;
  Access kind;
};

struct Graph {
  std::vector<std::vector<Access1>> tasks;
};

Graph random_graph(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  Graph g;
  g.tasks.resize(n);
  const Access kinds[] = {Access::in, Access::in, Access::out, Access::inout,
                          Access::inout, Access::commutative, Access::concurrent};
  for (auto& t : g.tasks) {
    const int ndeps = 1 + static_cast<int>(rng() % 3);
    for (int d = 0; d < ndeps; ++d) {
      const int a = static_cast<int>(rng() % kArrays);
      const int lo = static_cast<int>(rng() % kElems);
      const int len = 1 + static_cast<int>(rng() % 24);
      t.push_back({a, lo, std::min(kElems, lo + len), kinds[rng() % 7]});
    }
  }
  return g;
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

struct State {
  std::vector<uint64_t> data = std::vector<uint64_t>(kArrays * kElems, 1);
  std::vector<uint64_t> seen;  // per task: what its reads observed
  uint64_t* at(int a, int i) { return &data[static_cast<size_t>(a) * kElems + i]; }
};

// One task's body: the same in the serial and the parallel run.
void body(State& s, int id, const std::vector<Access1>& accesses) {
  for (const Access1& x : accesses) {
    for (int i = x.lo; i < x.hi; ++i) {
      uint64_t* p = s.at(x.array, i);
      switch (x.kind) {
        case Access::in: s.seen[id] = mix(s.seen[id], *p); break;
        case Access::out: *p = mix(0, id); break;
        case Access::inout: *p = mix(*p, id); break;
        // Additions commute, so any order inside one group gives the same state.
        case Access::commutative: *p += static_cast<uint64_t>(id) * 2654435761u; break;
        case Access::concurrent:
          std::atomic_ref<uint64_t>(*p).fetch_add(static_cast<uint64_t>(id) * 40503u);
          break;
      }
    }
  }
}

void check_against_serial(int workers, int n, uint32_t seed) {
  const Graph g = random_graph(n, seed);
  State serial, par;
  serial.seen.assign(n, 0);
  par.seen.assign(n, 0);
  for (int i = 0; i < n; ++i) body(serial, i, g.tasks[i]);

  Executor ex({.workers = workers});
  std::vector<Dep> deps;
  for (int i = 0; i < n; ++i) {
    deps.clear();
    for (const Access1& x : g.tasks[i])
      deps.push_back(Dep{par.at(x.array, x.lo), (x.hi - x.lo) * sizeof(uint64_t), x.kind});
    ex.spawn(deps, [&par, &g, i] { body(par, i, g.tasks[i]); });
  }
  ex.taskwait();
  EXPECT_EQ(ex.stats().executed, static_cast<uint64_t>(n));
  ASSERT_EQ(par.data, serial.data) << "workers " << workers << " seed " << seed;
  for (int i = 0; i < n; ++i) ASSERT_EQ(par.seen[i], serial.seen[i]) << "task " << i;
}

TEST(TaskGraph, RandomGraphMatchesSerialOneWorker) { check_against_serial(1, 100000, 1); }
TEST(TaskGraph, RandomGraphMatchesSerialTwoWorkers) { check_against_serial(2, 100000, 2); }
TEST(TaskGraph, RandomGraphMatchesSerialSixteenWorkers) { check_against_serial(16, 100000, 3); }

TEST(TaskGraph, ManySmallGraphsWithSixteenWorkers) {
  for (uint32_t seed = 10; seed < 30; ++seed) check_against_serial(16, 2000, seed);
}

TEST(TaskGraph, SpawningFromSeveralThreadsAtTopLevel) {
  // Top-level tasks from different threads are siblings; each thread's chain stays
  // ordered among itself.
  Executor ex({.workers = 4});
  std::vector<int> counters(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i)
        ex.spawn({inout(&counters[t])}, [&counters, t, i] {
          EXPECT_EQ(counters[t], i);
          ++counters[t];
        });
    });
  for (auto& th : threads) th.join();
  ex.taskwait();
  for (int c : counters) EXPECT_EQ(c, 2000);
}

}  // namespace
