// Whole routed jobs (INTERLACE_ROUTES through the engine hook), ranks as threads on shm
// and tcp: p2p all-to-all from 0 B to 1 MiB with one credit, collectives, an SMI channel.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <numeric>

#include "interlace/engine/context.hpp"
#include "interlace/interlace.hpp"
#include "interlace/stream/channel.hpp"
#include "route_gen.hpp"

using namespace interlace;

namespace {

class RouteJob : public ::testing::TestWithParam<const char*> {};

// Every rank sends every other rank `rounds` messages per size on one tag; receivers
// check content and that messages of a pair arrive in order (same tag: matched in order).
void all_to_all(Runtime& rt, const std::vector<size_t>& sizes, int rounds) {
  Communicator w = rt.world();
  const int n = w.size(), me = w.rank();
  auto fill = [](std::vector<uint8_t>& b, int src, int dst, int k) {
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(src * 13 + dst * 5 + k * 3 + i);
  };
  for (size_t len : sizes) {
    std::vector<std::vector<uint8_t>> out, in;
    std::vector<Request> rq;
    for (int k = 0; k < rounds; ++k)
      for (int p = 0; p < n; ++p) {
        if (p == me) continue;
        in.emplace_back(len);
        rq.push_back(w.irecv(in.back().data(), len, Datatype::uint8, p, 5));
      }
    for (int k = 0; k < rounds; ++k)
      for (int p = 0; p < n; ++p) {
        if (p == me) continue;
        out.emplace_back(len);
        fill(out.back(), me, p, k);
        rq.push_back(w.isend(out.back().data(), len, Datatype::uint8, p, 5));
      }
    Request::wait_all(rq);
    size_t i = 0;
    int bad = 0;
    for (int k = 0; k < rounds; ++k)
      for (int p = 0; p < n; ++p) {
        if (p == me) continue;
        std::vector<uint8_t> want(len);
        fill(want, p, me, k);
        bad += in[i++] != want;  // a reordered pair shows as the wrong k
      }
    EXPECT_EQ(bad, 0) << "rank " << me << ", " << len << " bytes";
  }
}

TEST_P(RouteJob, P2pAllToAllWithOneCreditFinishes) {
  struct T {
    const char* name;
    int n;
    std::string text;
  };
  const std::vector<T> topos = {{"ring2", 2, route_gen::ring(2)},       {"ring3", 3, route_gen::ring(3)},
                                {"ring4", 4, route_gen::ring(4)},       {"ring8", 8, route_gen::ring(8)},
                                {"mesh2x3", 6, route_gen::mesh(2, 3)}, {"bus5", 5, route_gen::line(5)}};
  for (const T& t : topos) {
    SCOPED_TRACE(t.name);
    route_gen::Dir dir(t.text);
    route_gen::Env env{{"INTERLACE_ROUTES", dir.path}, {"INTERLACE_ROUTE_CREDITS", "1"}};
    // 1 MiB only on the small rings: the 8-rank ones carry the rest (time on 2 cores).
    std::vector<size_t> sizes = {0, 1, 100, 5000, 70000, 300000};
    if (t.n <= 4) sizes.push_back(1u << 20);
    run_ranks_as_threads(t.n, [&](Runtime& rt) { all_to_all(rt, sizes, 3); }, GetParam());
  }
}

TEST_P(RouteJob, CollectivesAndAChannelOverARoutedRing) {
  route_gen::Dir dir(route_gen::ring(8));
  route_gen::Env env{{"INTERLACE_ROUTES", dir.path}, {"INTERLACE_ROUTE_CREDITS", "2"}};
  run_ranks_as_threads(8, [](Runtime& rt) {
    Communicator w = rt.world();
    const int n = w.size(), me = w.rank();
    std::vector<double> a(1000, me + 1.0), s(1000);
    coll::allreduce(w, a.data(), s.data(), a.size(), Datatype::float64, ReduceOp::sum);
    EXPECT_EQ(s[999], n * (n + 1) / 2.0);
    std::vector<int32_t> to(n * 100), from(n * 100);
    for (int p = 0; p < n; ++p)
      for (int i = 0; i < 100; ++i) to[p * 100 + i] = me * 1000 + p * 10 + i % 10;
    coll::alltoall(w, to.data(), from.data(), 100, Datatype::int32);
    int bad = 0;
    for (int p = 0; p < n; ++p)
      for (int i = 0; i < 100; ++i) bad += from[p * 100 + i] != p * 1000 + me * 10 + i % 10;
    EXPECT_EQ(bad, 0);
    std::vector<int64_t> b(50000, me == 3 ? 77 : 0);
    coll::bcast(w, b.data(), b.size(), Datatype::int64, 3);
    EXPECT_EQ(std::accumulate(b.begin(), b.end(), int64_t{0}), 77 * 50000);
    // An SMI channel between ranks 4 hops apart.
    const size_t count = 20000;
    if (me == 1) {
      stream::Sender<int32_t> snd(w, 5, 0, count, 16);
      for (size_t i = 0; i < count; ++i) snd.push(static_cast<int32_t>(i * 7));
    } else if (me == 5) {
      stream::Receiver<int32_t> rcv(w, 1, 0, count, 16);
      size_t wrong = 0;
      for (size_t i = 0; i < count; ++i) wrong += rcv.pop() != static_cast<int32_t>(i * 7);
      EXPECT_EQ(wrong, 0u);
    }
  }, GetParam());
}

TEST(RouteJobErrors, TablesForAnotherJobSizeFailClearly) {
  route_gen::Dir dir(route_gen::ring(4));
  route_gen::Env env{{"INTERLACE_ROUTES", dir.path}};
  try {
    run_ranks_as_threads(3, [](Runtime&) {}, "shm");
    FAIL() << "a 4-rank table ran a 3-rank job";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has routes for 4 ranks but the job has 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("routes.txt"), std::string::npos) << e.what();
  }
}

// Ranks as threads share one host whatever the fabric. Before, a tcp job did not count
// them (tcp is a network fabric and no launcher said how many ranks were local), so on
// a host with fewer cores than ranks they spun 2000 polls before sleeping: forwarding
// ranks then waited a scheduler slice (~1 ms) per hop for a core (bench/route_hops).
TEST(RouteJobWaits, TcpRanksAsThreadsWaitLikeShmRanks) {
  route_gen::Dir dir(route_gen::ring(8));
  route_gen::Env env{{"INTERLACE_ROUTES", dir.path}};
  std::map<std::string, std::vector<std::pair<int, int>>> policy;  // fabric -> per rank
  std::mutex m;
  for (const char* fab : {"shm", "tcp"}) {
    run_ranks_as_threads(8, [&](Runtime& rt) {
      const engine::Context& c = rt.context();
      EXPECT_EQ(c.environment().local_size, 8) << fab;
      EXPECT_EQ(c.environment().local_rank, c.rank()) << fab;
      std::lock_guard<std::mutex> g(m);
      policy[fab].emplace_back(c.spin_rounds(), c.yield_rounds());
    }, fab);
  }
  ASSERT_EQ(policy["tcp"].size(), 8u);
  for (const auto& p : policy["tcp"]) EXPECT_EQ(p, policy["shm"].front());
}

INSTANTIATE_TEST_SUITE_P(Fabrics, RouteJob, ::testing::Values("shm", "tcp"));

}  // namespace
