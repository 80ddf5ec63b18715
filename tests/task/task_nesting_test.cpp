// Nested tasks, taskwait scope, taskwait_on, exceptions, priorities, worker counts.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "interlace/core/error.hpp"
#include "interlace/task/task.hpp"
#include "task/task_test_util.hpp"

using namespace interlace;
using namespace interlace::task;
using task_test::eventually;
using task_test::Gate;

namespace {

TEST(TaskNesting, TaskwaitInATaskWaitsForItsOwnChildrenOnly) {
  Executor ex({.workers = 2});
  Gate unrelated_may_finish;
  std::atomic<bool> child_done{false};
  bool child_done_at_wait = false;
  ex.spawn([&] { EXPECT_TRUE(unrelated_may_finish.wait()); });
  ex.spawn([&] {
    ex.spawn([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      child_done = true;
    });
    ex.taskwait();  // must not wait for the unrelated top-level task
    child_done_at_wait = child_done.load();
    unrelated_may_finish.release();
  });
  ex.taskwait();
  EXPECT_TRUE(child_done_at_wait);
}

TEST(TaskNesting, AccessesAreReleasedAfterTheChildren) {
  // The parent returns without a taskwait; its successor still sees its child's write.
  Executor ex({.workers = 4});
  int x = 0, seen = -1;
  ex.spawn({inout(&x)}, [&] {
    ex.spawn({inout(&x)}, [&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      x = 5;
    });
  });
  ex.spawn({in(&x)}, [&] { seen = x; });
  ex.taskwait();
  EXPECT_EQ(seen, 5);
}

TEST(TaskNesting, ChildrenOrderAmongThemselvesOnly) {
  Executor ex({.workers = 4});
  std::vector<uint32_t> results(8, 0);  // unsigned: the chain wraps on purpose
  for (int p = 0; p < 8; ++p)
    ex.spawn([&, p] {
      uint32_t acc = 0;
      for (uint32_t i = 0; i < 100; ++i)
        ex.spawn({inout(&acc)}, [&acc, i] { acc = acc * 3 + i; });
      ex.taskwait();
      results[p] = acc;
    });
  ex.taskwait();
  uint32_t expect = 0;
  for (uint32_t i = 0; i < 100; ++i) expect = expect * 3 + i;
  for (uint32_t r : results) EXPECT_EQ(r, expect);
}

TEST(TaskNesting, DeepNesting) {
  Executor ex({.workers = 2});
  std::atomic<int> leaves{0};
  std::function<void(int)> grow = [&](int depth) {
    if (depth == 0) { leaves.fetch_add(1); return; }
    ex.spawn([&, depth] { grow(depth - 1); });
    ex.spawn([&, depth] { grow(depth - 1); });
    if (depth % 2) ex.taskwait();
  };
  ex.spawn([&] { grow(10); });
  ex.taskwait();
  EXPECT_EQ(leaves.load(), 1024);
}

TEST(TaskNesting, TaskwaitOnWaitsOnlyForConflicts) {
  Executor ex({.workers = 2});
  int a = 0, b = 0;
  Gate gate;
  ex.spawn({inout(&a)}, [&] { EXPECT_TRUE(gate.wait()); a = 1; });
  ex.spawn({inout(&b)}, [&] { b = 2; });
  ex.taskwait_on({in(&b)});  // returns while the task on a still waits
  EXPECT_EQ(b, 2);
  gate.release();
  ex.taskwait_on({inout(&a)});
  EXPECT_EQ(a, 1);
  ex.taskwait();
}

TEST(TaskNesting, TaskwaitOnInsideATask) {
  Executor ex({.workers = 1});
  int x = 0, seen = -1;
  ex.spawn([&] {
    ex.spawn({out(&x)}, [&] { x = 9; });
    ex.taskwait_on({in(&x)});
    seen = x;
  });
  ex.taskwait();
  EXPECT_EQ(seen, 9);
}

TEST(TaskNesting, ExceptionReachesTaskwaitAndCancelsDependents) {
  Executor ex({.workers = 2});
  int x = 0, y = 0, z = 0;
  std::atomic<bool> dependent_ran{false}, transitive_ran{false}, independent_ran{false};
  ex.spawn({out(&x)}, [] { throw Error(Errc::invalid_count, "task body failed on purpose"); });
  ex.spawn({in(&x), out(&y)}, [&] { dependent_ran = true; });
  ex.spawn({in(&y)}, [&] { transitive_ran = true; });
  ex.spawn({inout(&z)}, [&] { independent_ran = true; });
  try {
    ex.taskwait();
    FAIL() << "taskwait did not rethrow";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_count);
    EXPECT_NE(std::string(e.what()).find("on purpose"), std::string::npos);
  }
  EXPECT_FALSE(dependent_ran.load());
  EXPECT_FALSE(transitive_ran.load());
  EXPECT_TRUE(independent_ran.load());
  EXPECT_EQ(ex.stats().cancelled, 2u);
  ex.taskwait();  // reported once
  // The executor stays usable.
  ex.spawn({inout(&x)}, [&] { x = 3; });
  ex.taskwait();
  EXPECT_EQ(x, 3);
}

TEST(TaskNesting, DependentSpawnedAfterTheFailureFinishedIsCancelledToo) {
  // Whether the failed task is still running when its dependent is spawned must not
  // matter: until the taskwait reports the failure, its bytes stay poisoned.
  Executor ex({.workers = 1});
  int x = 0;
  std::atomic<bool> ran{false};
  ex.spawn({out(&x)}, [] { throw std::runtime_error("early failure"); });
  ASSERT_TRUE(eventually([&] { return ex.stats().executed == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // its release, too
  ex.spawn({in(&x)}, [&] { ran = true; });
  EXPECT_THROW(ex.taskwait(), std::runtime_error);
  EXPECT_FALSE(ran.load());
  ex.spawn({in(&x)}, [&] { ran = true; });  // reported: x is usable again
  ex.taskwait();
  EXPECT_TRUE(ran.load());
}

TEST(TaskNesting, SpawnThrottleCannotDeadlock) {
  // Far more tasks than the throttle's limit wait for a gate the spawning thread opens
  // only after spawning them all: the throttle must give up rather than wait forever.
  Executor ex({.workers = 1});
  int x = 0;
  Gate gate;
  std::atomic<int> n{0};
  ex.spawn({out(&x)}, [&] { EXPECT_TRUE(gate.wait()); });
  for (int i = 0; i < 5000; ++i) ex.spawn({in(&x)}, [&] { n.fetch_add(1); });
  gate.release();
  ex.taskwait();
  EXPECT_EQ(n.load(), 5000);
}

TEST(TaskNesting, SeveralFailuresAreCounted) {
  Executor ex({.workers = 2});
  for (int i = 0; i < 3; ++i) ex.spawn([] { throw std::runtime_error("boom"); });
  try {
    ex.taskwait();
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("2 more"), std::string::npos) << e.what();
  }
}

TEST(TaskNesting, ChildFailureReachesTheParentsTaskwait) {
  Executor ex({.workers = 2});
  bool caught = false;
  ex.spawn([&] {
    ex.spawn([] { throw std::logic_error("child"); });
    try {
      ex.taskwait();
    } catch (const std::logic_error&) {
      caught = true;
    }
  });
  ex.taskwait();  // handled inside: nothing left
  EXPECT_TRUE(caught);
}

TEST(TaskNesting, UnobservedChildFailureTravelsUp) {
  Executor ex({.workers = 2});
  int x = 0;
  std::atomic<bool> successor_ran{false};
  ex.spawn({out(&x)}, [&] { ex.spawn([] { throw std::logic_error("deep"); }); });
  ex.spawn({in(&x)}, [&] { successor_ran = true; });
  EXPECT_THROW(ex.taskwait(), std::logic_error);
  EXPECT_FALSE(successor_ran.load());
}

TEST(TaskNesting, TaskwaitOnReportsTheFailureItWaitedFor) {
  Executor ex({.workers = 2});
  int x = 0;
  ex.spawn({out(&x)}, [] { throw std::runtime_error("producer failed"); });
  EXPECT_THROW(ex.taskwait_on({in(&x)}), std::runtime_error);
  EXPECT_NO_THROW(ex.taskwait());
}

TEST(TaskNesting, PrioritiesWithOneWorker) {
  Executor ex({.workers = 1});
  Gate gate;
  std::vector<int> order;
  std::atomic<bool> busy{false};
  ex.spawn([&] { busy = true; EXPECT_TRUE(gate.wait()); });  // keeps the worker busy
  ASSERT_TRUE(eventually([&] { return busy.load(); }));
  const int prios[] = {1, 5, 3, 5, 0, -1, 0};
  for (int i = 0; i < 7; ++i)
    ex.spawn([&order, i] { order.push_back(i); }, {.priority = prios[i]});
  gate.release();
  ex.taskwait();
  EXPECT_EQ(order, (std::vector<int>{1, 3, 2, 0, 4, 6, 5}));
}

TEST(TaskNesting, CurrentAndInTask) {
  Executor ex({.workers = 2});
  EXPECT_EQ(Executor::current(), nullptr);
  EXPECT_FALSE(Executor::in_task());
  Executor* seen = nullptr;
  bool inside = false;
  ex.spawn([&] { seen = Executor::current(); inside = Executor::in_task(); });
  ex.taskwait();
  EXPECT_EQ(seen, &ex);
  EXPECT_TRUE(inside);
}

class TaskWorkers : public ::testing::TestWithParam<int> {};

TEST_P(TaskWorkers, IndependentTasksAllRun) {
  Executor ex({.workers = GetParam()});
  EXPECT_EQ(ex.workers(), GetParam());
  std::atomic<int> n{0};
  for (int i = 0; i < 5000; ++i) ex.spawn([&] { n.fetch_add(1); });
  ex.taskwait();
  EXPECT_EQ(n.load(), 5000);
  const Stats s = ex.stats();
  EXPECT_EQ(s.spawned, 5000u);
  EXPECT_EQ(s.executed, 5000u);
  EXPECT_GE(s.threads, GetParam());
}

TEST_P(TaskWorkers, AllWorkersCanRunAtOnce) {
  const int w = GetParam();
  Executor ex({.workers = w});
  std::atomic<int> started{0}, met{0};
  for (int i = 0; i < w; ++i)
    ex.spawn([&] {
      started.fetch_add(1);
      if (eventually([&] { return started.load() == w; })) met.fetch_add(1);
    });
  ex.taskwait();
  EXPECT_EQ(met.load(), w);
}

INSTANTIATE_TEST_SUITE_P(Counts, TaskWorkers, ::testing::Values(1, 2, 16));

TEST(TaskNesting, ProcessExecutorIsShared) {
  Executor& a = process_executor();
  EXPECT_EQ(&a, &process_executor());
  std::atomic<int> n{0};
  a.spawn([&] { n = 1; });
  a.taskwait();
  EXPECT_EQ(n.load(), 1);
}

TEST(TaskNesting, DestructorWaitsForTasks) {
  std::atomic<int> n{0};
  {
    Executor ex({.workers = 2});
    for (int i = 0; i < 100; ++i)
      ex.spawn([&] { std::this_thread::sleep_for(std::chrono::microseconds(100)); n.fetch_add(1); });
  }
  EXPECT_EQ(n.load(), 100);
}

}  // namespace
