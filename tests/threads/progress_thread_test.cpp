// The offload progress engine (INTERLACE_PROGRESS=thread, docs/progress.md): operations
// that one rank started move while that rank computes without calling the library,
// and an idle rank's progress thread sleeps in the fabric instead of polling.
// Ordering is asserted, not timing: the computing rank re-enters the library only after
// its peers finished (or after a generous 60 s, which then fails the test).
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "interlace/fabric/registry.hpp"
#include "interlace/interlace.hpp"
#include "common/progress_cases.hpp"
#include "common/scoped_env.hpp"

using namespace interlace;

namespace {

class ProgressThread : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!fabric::registry().find(GetParam()))
      GTEST_SKIP() << "this build has no " << GetParam() << " fabric";
  }
  testutil::ScopedEnv env_{"INTERLACE_PROGRESS", "thread"};
};

// 1 MiB by rendezvous from a root that computes (progress_cases.hpp).
TEST_P(ProgressThread, BcastFromAComputingRootReachesThePeers) {
  std::atomic<int> peers_done{0};
  run_ranks_as_threads(3, [&](Runtime& rt) {
    testutil::bcast_from_a_computing_root(rt, peers_done);
  }, GetParam());
}

// Every algorithm for three ranks needs a step of rank 0's after it received from a
// peer: the peers finish only if rank 0's schedule advances while it computes.
TEST_P(ProgressThread, AllreduceAdvancesOnAComputingRank) {
  std::atomic<int> peers_done{0};
  run_ranks_as_threads(3, [&](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<int64_t> in(1000, w.rank() + 1), out(1000, 0);
    coll::barrier(w);
    coll::Request r = coll::iallreduce(w, in.data(), out.data(), in.size(), Datatype::int64, ReduceOp::sum);
    if (w.rank() == 0) {
      EXPECT_TRUE(testutil::compute_until(peers_done, w.size() - 1)) << "peers did not finish while rank 0 computed";
      r.wait();
    } else {
      r.wait();
      peers_done.fetch_add(1);
    }
    EXPECT_EQ(out[0], 6);
    EXPECT_EQ(out[999], 6);
    coll::barrier(w);
  }, GetParam());
}

// A point-to-point rendezvous send posted before computing completes at the receiver.
TEST_P(ProgressThread, LargeSendFromAComputingRankArrives) {
  constexpr size_t n = 1 << 20;
  std::atomic<int> received{0};
  run_ranks_as_threads(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<char> buf(n, w.rank() == 0 ? 'x' : 0);
    if (w.rank() == 0) {
      Request s = w.isend(buf.data(), n, Datatype::bytes, 1, 7);
      EXPECT_TRUE(testutil::compute_until(received, 1)) << "the receiver did not get the data while the sender computed";
      s.wait();
    } else {
      w.recv(buf.data(), n, Datatype::bytes, 0, 7);
      EXPECT_EQ(buf[n - 1], 'x');
      received.store(1);
    }
    coll::barrier(w);
  }, GetParam());
}

struct Usage {
  long switches;
  double cpu_s;
};

Usage usage_now() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return {u.ru_nvcsw + u.ru_nivcsw, u.ru_utime.tv_sec + u.ru_stime.tv_sec +
                                          (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6};
}

// Two idle ranks (this process holds both, and both progress threads) over one second:
// sleeping in the fabric, a progress thread wakes for the peer check (every 0.2 s);
// the old back-off polled every 1 ms, some 2000 context switches a second for two.
TEST_P(ProgressThread, IdleRanksSleepInTheFabric) {
  Usage before{}, after{};
  run_ranks_as_threads(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    coll::barrier(w);
    coll::barrier(w);  // both progress threads have had a round with nothing to do
    if (w.rank() == 0) before = usage_now();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (w.rank() == 0) after = usage_now();
    coll::barrier(w);
  }, GetParam());
  EXPECT_LT(after.switches - before.switches, 400) << "the progress threads polled instead of sleeping";
  EXPECT_LT(after.cpu_s - before.cpu_s, 0.5);
}

// A thread-mode waiter blocks until a progress round moved something; a frame that
// arrives while it blocks still completes its receive promptly (within 10 s).
TEST_P(ProgressThread, BlockedWaiterSeesArrival) {
  run_ranks_as_threads(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    for (int i = 0; i < 50; ++i) {
      int v = 0;
      if (w.rank() == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(i % 5));
        v = i;
        w.send(&v, 1, Datatype::int32, 1, i);
        w.recv(&v, 1, Datatype::int32, 1, i);
      } else {
        w.recv(&v, 1, Datatype::int32, 0, i);
        EXPECT_EQ(v, i);
        w.send(&v, 1, Datatype::int32, 0, i);
      }
    }
  }, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Fabrics, ProgressThread, ::testing::Values("shm", "tcp", "udp", "ucx"),
                         [](const auto& info) { return info.param; });

}  // namespace
