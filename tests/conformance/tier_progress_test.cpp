// The progress thread (INTERLACE_PROGRESS=thread, docs/progress.md) on the two-tier
// fabric: ranks as threads on two fake hosts, so each rank has shm to its host mate and
// tcp to the other host. The thread sleeps in the tier (host fabric's sleep, the waker
// watching tcp) and still moves work that arrives on either tier while its rank computes.
// Ordering is asserted, not timing (a generous 60 s bound fails the test).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "interlace/bootstrap/store.hpp"
#include "interlace/engine/context.hpp"
#include "interlace/interlace.hpp"
#include "common/progress_cases.hpp"
#include "common/scoped_env.hpp"

using namespace interlace;

namespace {

// Ranks 0..size/2-1 on "host-a", the rest on "host-b": the fabric is shm+tcp.
void run_on_two_hosts(int size, const std::function<void(Runtime&)>& fn) {
  static std::atomic<int> counter{0};
  const std::string job = "tierp" + std::to_string(::getpid()) + "x" + std::to_string(++counter);
  auto store = bootstrap::shared_memory_store();
  Config cfg = Config::from_env();
  cfg.fabric = "shm+tcp";
  std::mutex m;
  std::exception_ptr first;
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r)
    threads.emplace_back([&, r] {
      try {
        engine::ContextOptions o;
        o.env.rank = r;
        o.env.size = size;
        o.env.local_rank = r % (size / 2);
        o.env.local_size = size / 2;
        o.env.job_id = job;
        o.env.secret = "tierp";
        o.env.host = r < size / 2 ? "host-a" : "host-b";
        o.env.source = "threads";
        o.config = cfg;
        o.store = store;
        Runtime rt(o);
        fn(rt);
        rt.finalize();
      } catch (...) {
        std::lock_guard<std::mutex> g(m);
        if (!first) first = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  if (first) std::rethrow_exception(first);
}

class TierProgress : public ::testing::Test {
 protected:
  testutil::ScopedEnv env_{"INTERLACE_PROGRESS", "thread"};
};

TEST_F(TierProgress, UsesTheTierFabric) {
  run_on_two_hosts(4, [&](Runtime& rt) {
    EXPECT_STREQ(rt.context().fabric().name(), "shm+tcp");
  });
}

// 1 MiB by rendezvous to a host mate (shm) and to the other host (tcp): the root answers
// both tiers' clear-to-send while it computes, which only its progress thread can do.
TEST_F(TierProgress, BcastFromAComputingRootReachesBothHosts) {
  std::atomic<int> peers_done{0};
  run_on_two_hosts(4, [&](Runtime& rt) {
    testutil::bcast_from_a_computing_root(rt, peers_done);
  });
}

// Sends from a computing rank to its host mate and across hosts both complete.
TEST_F(TierProgress, LargeSendsFromAComputingRankCrossBothTiers) {
  constexpr size_t n = 1 << 20;
  std::atomic<int> received{0};
  run_on_two_hosts(4, [&](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<char> buf(n, w.rank() == 0 ? 'x' : 0);
    if (w.rank() == 0) {
      Request a = w.isend(buf.data(), n, Datatype::bytes, 1, 7);  // shm
      Request b = w.isend(buf.data(), n, Datatype::bytes, 3, 7);  // tcp
      EXPECT_TRUE(testutil::compute_until(received, 2)) << "the receivers did not get the data while the sender computed";
      a.wait();
      b.wait();
    } else if (w.rank() == 1 || w.rank() == 3) {
      w.recv(buf.data(), n, Datatype::bytes, 0, 7);
      EXPECT_EQ(buf[n - 1], 'x');
      received.fetch_add(1);
    }
    coll::barrier(w);
  });
}

long switches_now() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_nvcsw + u.ru_nivcsw;
}

// Four idle ranks (four progress threads and four wakers in this process) for one second:
// sleeping in the tier they wake for the peer check (every 0.2 s); polling with the
// back-off costs about a thousand context switches a second per thread.
TEST_F(TierProgress, IdleRanksSleepInTheTier) {
  long before = 0, after = 0;
  run_on_two_hosts(4, [&](Runtime& rt) {
    Communicator w = rt.world();
    coll::barrier(w);
    coll::barrier(w);
    if (w.rank() == 0) before = switches_now();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (w.rank() == 0) after = switches_now();
    coll::barrier(w);
  });
  EXPECT_LT(after - before, 800) << "the progress threads polled instead of sleeping in the tier";
}

// A blocked waiter on either tier still sees its frames promptly while the progress
// thread sleeps in the tier.
TEST_F(TierProgress, PingPongOnBothTiers) {
  run_on_two_hosts(4, [&](Runtime& rt) {
    Communicator w = rt.world();
    const int mate = w.rank() ^ 1, far = (w.rank() + 2) % 4;
    for (int i = 0; i < 40; ++i) {
      const int peer = i % 2 ? mate : far;
      int v = i;
      if (w.rank() < peer) {
        std::this_thread::sleep_for(std::chrono::milliseconds(i % 3));
        w.send(&v, 1, Datatype::int32, peer, i);
        w.recv(&v, 1, Datatype::int32, peer, i);
      } else {
        w.recv(&v, 1, Datatype::int32, peer, i);
        EXPECT_EQ(v, i);
        w.send(&v, 1, Datatype::int32, peer, i);
      }
    }
  });
}

}  // namespace
