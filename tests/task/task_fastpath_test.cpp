// The spawn fast path (docs/tasks.md, "Overhead"): the exact-address index over the
// fragment map, idle fragments kept for reuse, and delegated completion. Each test
// checks a property those could break; none depends on timing.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <unordered_map>
#include <vector>

#include "interlace/task/task.hpp"
#include "task/addr_index.hpp"
#include "task/task_test_util.hpp"

using namespace interlace::task;
using task_test::Gate;

namespace {

// Random inserts, erases and lookups against std::unordered_map: the backward-shift
// deletion must keep every remaining key findable (keys collide in small tables).
TEST(TaskFastPath, AddrIndexMatchesAReferenceMap) {
  detail::AddrIndex<uint64_t> index;
  std::unordered_map<uintptr_t, uint64_t> ref;
  std::mt19937_64 rng(12345);
  for (int step = 0; step < 200000; ++step) {
    const uintptr_t key = 64 * (1 + rng() % 3000);  // aligned like real addresses
    const int op = static_cast<int>(rng() % 3);
    if (op == 0 && !ref.count(key)) {
      index.insert(key, step);
      ref[key] = step;
    } else if (op == 1) {
      index.erase(key);
      ref.erase(key);
    } else {
      uint64_t* got = index.find(key);
      auto it = ref.find(key);
      ASSERT_EQ(got != nullptr, it != ref.end()) << "key " << key << " step " << step;
      if (got) {
        ASSERT_EQ(*got, it->second);
      }
    }
    if (step % 50000 == 0) {
      for (auto& [k, v] : ref) {
        uint64_t* got = index.find(k);
        ASSERT_NE(got, nullptr) << "key " << k;
        ASSERT_EQ(*got, v);
      }
    }
  }
  EXPECT_EQ(index.size(), ref.size());
  index.clear();
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.find(64), nullptr);
}

// Regions whose tasks all finished stay as idle fragments; a later access that only
// partly overlaps them must still be split exactly: a writer of [8, 24) after idle
// fragments [0, 16) and [16, 32) waits for a reader of [0, 8) only if they overlap
// (they do not) and for a reader of [20, 28) (they do).
TEST(TaskFastPath, PartialOverlapOfIdleFragmentsOrdersOnlyCommonBytes) {
  Executor ex({.workers = 3});
  alignas(64) static char buf[64];
  ex.spawn({Dep{buf, 16, Access::out}}, [] {});
  ex.spawn({Dep{buf + 16, 16, Access::out}}, [] {});
  ex.taskwait();  // both fragments idle now
  Gate release_left, release_right;
  std::atomic<bool> writer_ran{false};
  ex.spawn({Dep{buf, 8, Access::in}}, [&] { release_left.wait(); });
  ex.spawn({Dep{buf + 20, 8, Access::in}}, [&] { release_right.wait(); });
  ex.spawn({Dep{buf + 8, 16, Access::out}}, [&] { writer_ran = true; });
  // The writer shares no byte with [0, 8): releasing only the right reader lets it run.
  release_right.release();
  EXPECT_TRUE(task_test::eventually([&] { return writer_ran.load(); }));
  release_left.release();
  ex.taskwait();
}

// A task object is reused once its task completed; an idle fragment may still hold a
// Ref to its earlier incarnation as the last member. A new task in that object with two
// accesses to those bytes must not take the stale Ref for its own first access (which
// would drop the ordering after the earlier writer it must wait for).
TEST(TaskFastPath, StaleRefsInIdleFragmentsAreNotTheNewTask) {
  Executor ex({.workers = 2});
  static long x = 0;
  for (int round = 0; round < 200; ++round) {
    Gate gate;
    std::atomic<int> order{0};
    int writer_at = 0, reader_at = 0;
    ex.spawn({inout(&x)}, [&] {
      gate.wait();
      writer_at = ++order;
    });
    // in + concurrent on the same bytes combine into exclusive access.
    ex.spawn({in(&x), concurrent(&x)}, [&] { reader_at = ++order; });
    gate.release();
    ex.taskwait();
    ASSERT_LT(writer_at, reader_at) << "round " << round;
  }
}

// More distinct regions than the idle fragments kept: the map drops the excess and
// the index stays consistent with it (every dependency still orders).
TEST(TaskFastPath, ManyDistinctRegionsStillOrder) {
  Executor ex({.workers = 2});
  constexpr int kRegions = 20000;
  std::vector<long> v(kRegions, 0);
  for (int pass = 0; pass < 3; ++pass) {
    for (int i = 0; i < kRegions; ++i) ex.spawn({inout(&v[i])}, [&v, i] { v[i] = v[i] * 2 + 1; });
    // Readers of pairs of neighbours span two fragments each.
    for (int i = 0; i + 1 < kRegions; i += 997)
      ex.spawn({Dep{&v[i], 2 * sizeof(long), Access::inout}}, [&v, i] { v[i] += v[i + 1]; v[i + 1] = 0; });
  }
  ex.taskwait();
  // Serial replay of the same program.
  std::vector<long> want(kRegions, 0);
  for (int pass = 0; pass < 3; ++pass) {
    for (int i = 0; i < kRegions; ++i) want[i] = want[i] * 2 + 1;
    for (int i = 0; i + 1 < kRegions; i += 997) { want[i] += want[i + 1]; want[i + 1] = 0; }
  }
  EXPECT_EQ(v, want);
}

// Completions left to the lock's holder are never lost: many short tasks from several
// spawning tasks, each spawner waiting for its own children, all complete.
TEST(TaskFastPath, DelegatedCompletionsAllArrive) {
  Executor ex({.workers = 2});
  std::atomic<long> ran{0};
  for (int p = 0; p < 8; ++p)
    ex.spawn([&] {
      for (int i = 0; i < 2000; ++i) Executor::current()->spawn([&] { ran.fetch_add(1); });
      Executor::current()->taskwait();
    });
  ex.taskwait();
  EXPECT_EQ(ran.load(), 8 * 2000);
  EXPECT_EQ(ex.stats().executed, 8u + 8u * 2000u);
}

}  // namespace
