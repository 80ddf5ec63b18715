// Blocking calls inside tasks must not starve the pool (docs/tasks.md, "Blocking"):
// a task waiting for a peer lends its core to another worker thread.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "interlace/p2p/communicator.hpp"
#include "interlace/task/task.hpp"

using namespace interlace;
using namespace interlace::task;

namespace {

class TaskBlocking : public ::testing::TestWithParam<std::string> {};

// Every rank has one worker and spawns its receive before its send: without lending,
// every rank's only worker waits in recv for a send that is never run.
TEST_P(TaskBlocking, RingOfBlockingSendRecvWithOneWorker) {
  for (int n : {2, 3, 4}) {
    std::atomic<uint64_t> lent{0};
    run_ranks_as_threads(n, [&lent](Runtime& rt) {
      Communicator w = rt.world();
      Executor ex({.workers = 1, .runtime = &rt});
      const int right = (w.rank() + 1) % w.size(), left = (w.rank() + w.size() - 1) % w.size();
      int32_t got = -1, mine = w.rank() * 10;
      ex.spawn({out(&got)}, [&] { w.recv(&got, 1, Datatype::int32, left, 7); });
      // ssend: the send blocks too, until the right neighbour's receive matched it.
      ex.spawn({in(&mine)}, [&] { w.ssend(&mine, 1, Datatype::int32, right, 7); });
      ex.taskwait();
      EXPECT_EQ(got, left * 10);
      lent.fetch_add(ex.stats().blocked);
    }, GetParam());
    // Some rank's first receive had to wait for a send its own worker had not run.
    EXPECT_GE(lent.load(), 1u);
  }
}

TEST_P(TaskBlocking, SendsFirstThenReceives) {
  run_ranks_as_threads(3, [](Runtime& rt) {
    Communicator w = rt.world();
    Executor ex({.workers = 1, .runtime = &rt});
    const int right = (w.rank() + 1) % w.size(), left = (w.rank() + w.size() - 1) % w.size();
    std::vector<int32_t> got(4, -1), mine(4);
    for (int i = 0; i < 4; ++i) mine[i] = w.rank() * 100 + i;
    for (int i = 0; i < 4; ++i)
      ex.spawn({in(&mine[i])}, [&, i] { w.ssend(&mine[i], 1, Datatype::int32, right, i); });
    for (int i = 0; i < 4; ++i)
      ex.spawn({out(&got[i])}, [&, i] { w.recv(&got[i], 1, Datatype::int32, left, i); });
    ex.taskwait();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], left * 100 + i);
  }, GetParam());
}

// A task waits in taskwait while its child waits in recv: both waits lend the core.
TEST_P(TaskBlocking, TaskwaitOverABlockedChild) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    Executor ex({.workers = 1, .runtime = &rt});
    const int peer = 1 - w.rank();
    int32_t got = -1, mine = 5 + w.rank();
    ex.spawn([&] {
      ex.spawn({out(&got)}, [&] { w.recv(&got, 1, Datatype::int32, peer, 3); });
      ex.taskwait();
      EXPECT_EQ(got, 5 + peer);
    });
    ex.spawn({in(&mine)}, [&] { w.ssend(&mine, 1, Datatype::int32, peer, 3); });
    ex.taskwait();
    EXPECT_EQ(got, 5 + peer);
  }, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Fabrics, TaskBlocking, ::testing::Values("shm", "tcp"));

TEST(TaskBlockingLocal, NestedTaskwaitsWithOneWorker) {
  // Every level waits for its child: the waiting task runs its own child itself.
  Executor ex({.workers = 1});
  std::atomic<int> depth_reached{0};
  std::function<void(int)> nest = [&](int d) {
    depth_reached = std::max(depth_reached.load(), d);
    if (d == 20) return;
    ex.spawn([&, d] { nest(d + 1); });
    ex.taskwait();
  };
  ex.spawn([&] { nest(1); });
  ex.taskwait();
  EXPECT_EQ(depth_reached.load(), 20);
  EXPECT_EQ(ex.stats().executed, 20u);
}

}  // namespace
