// Dependency semantics among sibling tasks (OmpSs-2; docs/tasks.md).
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "interlace/core/error.hpp"
#include "interlace/task/task.hpp"
#include "task/task_test_util.hpp"

using namespace interlace;
using namespace interlace::task;
using task_test::eventually;
using task_test::Gate;

namespace {

// A logical clock: a later event gets a larger number.
std::atomic<int> g_clock{0};
int tick() { return g_clock.fetch_add(1) + 1; }

TEST(TaskDeps, ReadAfterWriteWaitsForTheWriter) {
  Executor ex({.workers = 4});
  int x = 0, seen = -1, wrote_at = 0, read_at = 0;
  ex.spawn({out(&x)}, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    x = 42;
    wrote_at = tick();
  });
  ex.spawn({in(&x)}, [&] { read_at = tick(); seen = x; });
  ex.taskwait();
  EXPECT_EQ(seen, 42);
  EXPECT_GT(read_at, wrote_at);
}

TEST(TaskDeps, WriteAfterReadWaitsForTheReaders) {
  Executor ex({.workers = 4});
  int x = 7;
  std::atomic<int> reads_done{0};
  int seen_by_writer = -1;
  for (int i = 0; i < 3; ++i)
    ex.spawn({in(&x)}, [&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      EXPECT_EQ(x, 7);
      reads_done.fetch_add(1);
    });
  ex.spawn({out(&x)}, [&] { seen_by_writer = reads_done.load(); x = 8; });
  ex.taskwait();
  EXPECT_EQ(seen_by_writer, 3);
  EXPECT_EQ(x, 8);
}

TEST(TaskDeps, WriteAfterWriteKeepsSpawnOrder) {
  Executor ex({.workers = 4});
  std::vector<int> order;
  int x = 0;
  for (int i = 0; i < 50; ++i)
    ex.spawn({inout(&x)}, [&, i] { order.push_back(i); ++x; });
  ex.taskwait();
  ASSERT_EQ(order.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(order[i], i);
  EXPECT_EQ(x, 50);
}

TEST(TaskDeps, ConcurrentReadersReallyOverlap) {
  Executor ex({.workers = 2});
  int x = 1;
  std::atomic<int> started{0};
  std::atomic<int> met{0};
  for (int i = 0; i < 2; ++i)
    ex.spawn({in(&x)}, [&] {
      started.fetch_add(1);
      // Each reader waits until the other has started: serialised readers never meet.
      if (eventually([&] { return started.load() == 2; })) met.fetch_add(1);
    });
  ex.taskwait();
  EXPECT_EQ(met.load(), 2);
}

TEST(TaskDeps, ConcurrentAccessesOverlapAndFollowTheWriter) {
  Executor ex({.workers = 2});
  int x = 0;
  std::atomic<int> started{0}, met{0};
  std::atomic<bool> writer_done{false};
  bool saw_writer = true;
  ex.spawn({out(&x)}, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    writer_done = true;
  });
  for (int i = 0; i < 2; ++i)
    ex.spawn({concurrent(&x)}, [&] {
      if (!writer_done.load()) saw_writer = false;
      started.fetch_add(1);
      if (eventually([&] { return started.load() == 2; })) met.fetch_add(1);
    });
  ex.taskwait();
  EXPECT_EQ(met.load(), 2);
  EXPECT_TRUE(saw_writer);
}

TEST(TaskDeps, CommutativeTasksExcludeEachOther) {
  Executor ex({.workers = 4});
  int x = 0, y = 0;
  std::atomic<int> inside{0}, most{0};
  int after = -1;
  ex.spawn({out(&x)}, [&] { x = 1000; });
  for (int i = 0; i < 40; ++i)
    ex.spawn({commutative(&x), in(&y)}, [&] {
      const int n = inside.fetch_add(1) + 1;
      int m = most.load();
      while (n > m && !most.compare_exchange_weak(m, n)) {}
      ++x;  // unsynchronised on purpose: exclusion makes it safe
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      inside.fetch_sub(1);
    });
  ex.spawn({in(&x)}, [&] { after = x; });
  ex.taskwait();
  EXPECT_EQ(most.load(), 1);
  EXPECT_EQ(after, 1040);
}

TEST(TaskDeps, CommutativeTasksAreNotOrdered) {
  // One worker, busy until both commutative tasks are ready: the later one, with the
  // higher priority, runs first (inout would have kept spawn order).
  Executor ex({.workers = 1});
  int x = 0, busy = 0;
  Gate gate;
  std::vector<int> order;
  std::atomic<bool> running{false};
  ex.spawn({inout(&busy)}, [&] { running = true; EXPECT_TRUE(gate.wait()); });
  ASSERT_TRUE(eventually([&] { return running.load(); }));
  ex.spawn({commutative(&x)}, [&] { order.push_back(1); });
  ex.spawn({commutative(&x)}, [&] { order.push_back(2); }, {.priority = 5});
  gate.release();
  ex.taskwait();
  EXPECT_EQ(order, (std::vector<int>{2, 1}));
}

TEST(TaskDeps, PartialOverlapOrdersOnlyTheBytesInCommon) {
  Executor ex({.workers = 2});
  std::vector<char> buf(200);
  Gate writer_may_finish;
  std::atomic<bool> writer_done{false};
  bool inner_saw_writer = false;
  std::atomic<bool> outer_ran{false};
  ex.spawn({out(buf.data(), 100)}, [&] {
    // Finishes only once the reader of [100,200) ran: that one must not wait for us.
    EXPECT_TRUE(eventually([&] { return outer_ran.load(); }));
    writer_done = true;
  });
  ex.spawn({in(buf.data() + 50, 10)}, [&] { inner_saw_writer = writer_done.load(); });
  ex.spawn({in(buf.data() + 100, 100)}, [&] { outer_ran = true; });
  ex.taskwait();
  EXPECT_TRUE(inner_saw_writer);
  EXPECT_TRUE(outer_ran.load());
}

TEST(TaskDeps, OverlapThroughDifferentBaseAddresses) {
  // [0,64) written; a reader of [60,70) shares 4 bytes with it and must wait.
  Executor ex({.workers = 2});
  std::vector<char> buf(128);
  std::atomic<bool> writer_done{false};
  bool ok = false;
  ex.spawn({out(buf.data(), 64)}, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    writer_done = true;
  });
  ex.spawn({in(buf.data() + 60, 10)}, [&] { ok = writer_done.load(); });
  ex.taskwait();
  EXPECT_TRUE(ok);
}

TEST(TaskDeps, ZeroLengthAccessesOrderNothing) {
  Executor ex({.workers = 2});
  int x = 0;
  Gate gate;
  std::atomic<bool> second_ran{false};
  ex.spawn({Dep{&x, 0, Access::out}}, [&] {
    EXPECT_TRUE(eventually([&] { return second_ran.load(); }));
  });
  ex.spawn({Dep{&x, 0, Access::in}}, [&] { second_ran = true; });
  ex.taskwait();
  EXPECT_TRUE(second_ran.load());
}

TEST(TaskDeps, BadInputIsNamed) {
  Executor ex({.workers = 1});
  try {
    make_dep(&ex, -5, Access::in);
    FAIL() << "negative length accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("-5"), std::string::npos) << e.what();
  }
  try {
    ex.spawn({Dep{nullptr, 16, Access::in}}, [] {});
    FAIL() << "null address accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("16"), std::string::npos) << e.what();
  }
  int x;
  try {
    ex.spawn({Dep{&x, static_cast<size_t>(-4), Access::in}}, [] {});
    FAIL() << "wrapped length accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("negative"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ex.spawn({Dep{&x, 4, static_cast<Access>(9)}}, [] {}), Error);
  EXPECT_THROW(ex.spawn(std::function<void()>()), Error);
  EXPECT_THROW(Executor({.workers = -1}), Error);
  EXPECT_EQ(std::string(access_name(Access::commutative)), "commutative");
  ex.taskwait();  // nothing was spawned by the failed calls
  EXPECT_EQ(ex.stats().spawned, 0u);
}

TEST(TaskDeps, WorkersComeFromTheEnvironment) {
  setenv("INTERLACE_TASK_WORKERS", "3", 1);
  EXPECT_EQ(default_workers(), 3);
  {
    Executor ex;
    EXPECT_EQ(ex.workers(), 3);
  }
  setenv("INTERLACE_TASK_WORKERS", "lots", 1);
  try {
    default_workers();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lots"), std::string::npos) << e.what();
  }
  unsetenv("INTERLACE_TASK_WORKERS");
  EXPECT_GE(default_workers(), 1);
}

}  // namespace
