// The route layer over shm and tcp with raw frames: all-to-all on several topologies
// with one credit per link and VC, per-pair order, only neighbours reached, and the
// routing-deadlock watchdog on a cyclic table (against the dateline table).
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstring>
#include <map>

#include "interlace/core/config.hpp"
#include "route_harness.hpp"

using namespace interlace;
using route_test::Job;

namespace {

uint8_t pattern(uint32_t src, uint32_t seq, size_t i) { return static_cast<uint8_t>(src * 31 + seq * 7 + i); }

struct Rx final : fabric::FrameSink {
  explicit Rx(int n) : next_seq(static_cast<size_t>(n), 0) {}
  void on_frame(const fabric::FrameHeader& h, const std::byte* p) override {
    if (h.seq != next_seq[h.src]) ++disorder;
    next_seq[h.src] = h.seq + 1;
    if (h.reserved != 0) ++bad;
    for (size_t i = 0; i < h.len; ++i)
      if (static_cast<uint8_t>(p[i]) != pattern(h.src, h.seq, i)) {
        ++bad;
        break;
      }
    ++got;
  }
  void on_peer_lost(int peer, const std::string& why) override { lost.emplace_back(peer, why); }
  std::vector<uint32_t> next_seq;
  int got = 0, disorder = 0, bad = 0;
  std::vector<std::pair<int, std::string>> lost;
};

fabric::FrameHeader header(int src, int dst, uint32_t seq, size_t len) {
  fabric::FrameHeader h;
  h.kind = fabric::kKindP2pEager;
  h.src = static_cast<uint32_t>(src);
  h.dst = static_cast<uint32_t>(dst);
  h.seq = seq;
  h.len = len;
  return h;
}

// Runs body(rank, fabric) on every rank; each thread then destroys its route layer
// (a collective teardown).
void run(Job& job, const std::function<void(int, fabric::Fabric&)>& body) {
  std::vector<std::thread> th;
  for (int r = 0; r < static_cast<int>(job.fabrics.size()); ++r)
    th.emplace_back([&, r] {
      body(r, *job.fabrics[static_cast<size_t>(r)]);
      job.fabrics[static_cast<size_t>(r)].reset();
    });
  for (auto& t : th) t.join();
}

struct Topo {
  const char* name;
  int n;
  std::string text;
};

std::vector<Topo> topologies() {
  using namespace route_gen;
  return {{"ring2", 2, ring(2)}, {"ring3", 3, ring(3)},      {"ring4", 4, ring(4)}, {"ring8", 8, ring(8)},
          {"mesh2x3", 6, mesh(2, 3)}, {"bus5", 5, line(5)}, {"full4", 4, full(4)}};
}

class RouteFabric : public ::testing::TestWithParam<const char*> {};

TEST_P(RouteFabric, AllToAllWithOneCreditFinishesOnEveryTopology) {
  for (const Topo& topo : topologies()) {
    SCOPED_TRACE(topo.name);
    route_gen::Dir dir(topo.text);
    Config cfg;
    cfg.route_credits = 1;
    cfg.route_watchdog_s = 60;
    Job job = route_test::make_job(GetParam(), dir.path, topo.n, cfg);
    ASSERT_TRUE(job.table.dependency_cycle().empty()) << topo.name << " tables must be deadlock-free";
    const int n = topo.n, per_peer = 12;
    const size_t maxp = std::min<size_t>(job.fabrics[0]->max_payload(), 131000);
    const std::vector<size_t> sizes = {0, 8, 1000, 40000, maxp};
    std::vector<Rx> rx(static_cast<size_t>(n), Rx(n));
    std::vector<int> unfinished(static_cast<size_t>(n), 0);
    run(job, [&](int me, fabric::Fabric& f) {
      Rx& in = rx[static_cast<size_t>(me)];
      std::vector<uint32_t> sent(static_cast<size_t>(n), 0);
      std::vector<uint8_t> buf(maxp);
      const int want = per_peer * n;  // every rank, itself included
      auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      int total_sent = 0;
      while ((total_sent < want || in.got < want) && std::chrono::steady_clock::now() < end) {
        for (int k = 0; k < n; ++k) {
          const int d = (me + k) % n;
          uint32_t& s = sent[static_cast<size_t>(d)];
          if (s == static_cast<uint32_t>(per_peer)) continue;
          const size_t len = sizes[(s + static_cast<uint32_t>(d)) % sizes.size()];
          for (size_t i = 0; i < len; ++i) buf[i] = pattern(static_cast<uint32_t>(me), s, i);
          if (f.send(d, header(me, d, s, len), buf.data(), len) == Errc::ok) {
            ++s;
            ++total_sent;
          }
        }
        if (f.progress(in) == 0) f.wait(0.001);
      }
      unfinished[static_cast<size_t>(me)] = want - in.got + want - total_sent;
    });
    for (int r = 0; r < n; ++r) {
      const Rx& in = rx[static_cast<size_t>(r)];
      EXPECT_EQ(unfinished[static_cast<size_t>(r)], 0) << "rank " << r;
      EXPECT_EQ(in.disorder, 0) << "rank " << r;
      EXPECT_EQ(in.bad, 0) << "rank " << r;
      EXPECT_TRUE(in.lost.empty()) << "rank " << r << ": " << (in.lost.empty() ? "" : in.lost[0].second);
      // Frames reach neighbours only, and the route layer did forward on multi-hop tables.
      for (int p = 0; p < n; ++p) {
        if (job.sent[static_cast<size_t>(r)][static_cast<size_t>(p)] > 0) {
          EXPECT_TRUE(p == r || job.table.linked(r, p)) << "rank " << r << " sent to non-neighbour " << p;
        }
      }
    }
  }
}

// Ring of 4, every rank sends to the rank two hops clockwise with one credit. Every
// rank injects its first frame before any rank progresses: then every buffer holds a
// transit frame waiting for a channel whose only credit that very frame's sender holds.
// The cyclic table must deadlock (always) and the watchdog must name the cycle; the
// dateline table carries the same traffic to the end.
struct FloodResult {
  std::vector<Rx> rx;
  std::vector<int> sent;
  double seconds = 0;
};

FloodResult flood_two_hops(const char* fab, bool cyclic, int frames) {
  route_gen::Dir dir(route_gen::ring(4, cyclic));
  Config cfg;
  cfg.route_credits = 1;
  cfg.route_watchdog_s = 1;
  Job job = route_test::make_job(fab, dir.path, 4, cfg);
  FloodResult res;
  res.rx.assign(4, Rx(4));
  res.sent.assign(4, 0);
  std::barrier sync(4);
  const auto t0 = std::chrono::steady_clock::now();
  run(job, [&](int me, fabric::Fabric& f) {
    const int d = (me + 2) % 4;
    Rx& in = res.rx[static_cast<size_t>(me)];
    int& s = res.sent[static_cast<size_t>(me)];
    uint8_t b[64];
    for (size_t i = 0; i < sizeof b; ++i) b[i] = pattern(static_cast<uint32_t>(me), 0, i);
    EXPECT_EQ(f.send(d, header(me, d, 0, sizeof b), b, sizeof b), Errc::ok);
    s = 1;
    sync.arrive_and_wait();
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while ((s < frames || in.got < frames) && in.lost.empty() && std::chrono::steady_clock::now() < end) {
      for (size_t i = 0; i < sizeof b; ++i) b[i] = pattern(static_cast<uint32_t>(me), static_cast<uint32_t>(s), i);
      if (s < frames && f.send(d, header(me, d, static_cast<uint32_t>(s), sizeof b), b, sizeof b) == Errc::ok) ++s;
      if (f.progress(in) == 0) f.wait(0.001);
    }
  });
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

TEST_P(RouteFabric, CyclicTablesTripTheWatchdogNamingTheCycle) {
  FloodResult r = flood_two_hops(GetParam(), true, 200);
  for (int me = 0; me < 4; ++me) {
    const Rx& in = r.rx[static_cast<size_t>(me)];
    ASSERT_FALSE(in.lost.empty()) << "rank " << me << " got " << in.got << " frames and no report";
    bool named = false;
    for (const auto& [peer, why] : in.lost) {
      EXPECT_NE(why.find("routing deadlock"), std::string::npos) << why;
      named |= peer == (me + 2) % 4 && why.find("dependency cycle") != std::string::npos &&
               why.find("0->1 vc0") != std::string::npos && why.find("3->0 vc0") != std::string::npos;
    }
    EXPECT_TRUE(named) << "rank " << me << ": " << in.lost[0].second;
  }
  EXPECT_LT(r.seconds, 25.0);
}

TEST_P(RouteFabric, DatelineTablesCarryTheSameTraffic) {
  FloodResult r = flood_two_hops(GetParam(), false, 200);
  for (int me = 0; me < 4; ++me) {
    const Rx& in = r.rx[static_cast<size_t>(me)];
    EXPECT_TRUE(in.lost.empty()) << in.lost[0].second;
    EXPECT_EQ(in.got, 200) << "rank " << me;
    EXPECT_EQ(r.sent[static_cast<size_t>(me)], 200);
    EXPECT_EQ(in.disorder, 0);
    EXPECT_EQ(in.bad, 0);
  }
}

TEST(RouteFabricErrors, TablesForAnotherJobSizeAreRejected) {
  route_gen::Dir dir(route_gen::ring(4));
  try {
    route_test::make_job("shm", dir.path, 3, Config{});
    FAIL() << "a 4-rank table was accepted for 3 ranks";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("has routes for 4 ranks but the job has 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(dir.path), std::string::npos) << e.what();
  }
}

// Rank 2 of a ring of 4 dies: its neighbours report it and the ranks they reach only
// through it; rank 0, two hops away, learns of it from the flooded notice.
TEST_P(RouteFabric, ALostRankIsReportedEverywhereWithTheRanksBehindIt) {
  route_gen::Dir dir(route_gen::ring(4));
  Config cfg;
  cfg.connect_timeout_s = 2;  // the dead rank's own teardown gives up quickly
  cfg.route_watchdog_s = 1;
  std::atomic<int> kill{2};
  Job job = route_test::make_job(GetParam(), dir.path, 4, cfg, &kill);
  std::vector<Rx> rx(4, Rx(4));
  run(job, [&](int me, fabric::Fabric& f) {
    if (me == 2) return;
    Rx& in = rx[static_cast<size_t>(me)];
    auto has = [&](int r) {
      for (const auto& l : in.lost)
        if (l.first == r) return true;
      return false;
    };
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!has(2) && std::chrono::steady_clock::now() < end) {
      f.check_peers(in);
      if (f.progress(in) == 0) f.wait(0.01);
    }
    // The notice may lag the neighbours' own reports by a little: settle briefly.
    for (int i = 0; i < 20; ++i) {
      f.progress(in);
      f.wait(0.005);
    }
    EXPECT_EQ(f.send(2, header(me, 2, 0, 0), nullptr, 0), Errc::lost_peer) << "rank " << me;
  });
  auto lost = [&](int me) {
    std::map<int, std::string> m(rx[static_cast<size_t>(me)].lost.begin(), rx[static_cast<size_t>(me)].lost.end());
    return m;
  };
  auto l0 = lost(0), l1 = lost(1), l3 = lost(3);
  ASSERT_TRUE(l0.count(2)) << "rank 0 never heard of rank 2's loss";
  EXPECT_NE(l0[2].find("notice from neighbour"), std::string::npos) << l0[2];
  EXPECT_EQ(l0.size(), 1u);
  ASSERT_TRUE(l1.count(2));
  EXPECT_NE(l1[2].find("killed"), std::string::npos) << l1[2];
  ASSERT_TRUE(l1.count(3)) << "1 -> 3 runs through 2";
  EXPECT_NE(l1[3].find("passes rank 2"), std::string::npos) << l1[3];
  EXPECT_FALSE(l1.count(0));
  ASSERT_TRUE(l3.count(2));
  EXPECT_TRUE(l3.count(1)) << "1 -> 3 runs through 2";
}

INSTANTIATE_TEST_SUITE_P(Fabrics, RouteFabric, ::testing::Values("shm", "tcp"));

}  // namespace

namespace {

// A channel that ran out of credit once, long ago, is not "stuck" when it runs out
// again later: the watchdog counts from the latest wait only.
TEST(RouteWatchdog, AnOldShortWaitIsNotCountedLater) {
  route_gen::Dir dir(route_gen::ring(2));
  Config cfg;
  cfg.route_credits = 1;
  cfg.route_watchdog_s = 5;
  Job job = route_test::make_job("shm", dir.path, 2, cfg);
  std::vector<Rx> rx(2, Rx(2));
  std::atomic<int> phase{0};
  run(job, [&](int me, fabric::Fabric& f) {
    Rx& in = rx[static_cast<size_t>(me)];
    auto spin = [&](double s) {
      auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
      while (std::chrono::steady_clock::now() < end) {
        f.progress(in);
        f.wait(0.001);
      }
    };
    uint32_t seq = 0;
    for (int round = 0; round < 2; ++round) {
      if (me == 0) {
        // Two frames with one credit: the second waits (the channel is stuck) until
        // rank 1 starts reading, 0.1 s later.
        for (int k = 0; k < 2; ++k)
          EXPECT_EQ(f.send(1, header(0, 1, seq, 0), nullptr, 0), Errc::ok);
        seq += 2;
        f.progress(in);
        phase.store(2 * round + 1);
        spin(round == 0 ? 6.0 : 1.0);  // round 0: idle for longer than the watchdog
      } else {
        while (phase.load() != 2 * round + 1) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        spin(round == 0 ? 5.9 : 1.0);
      }
    }
  });
  EXPECT_TRUE(rx[0].lost.empty()) << rx[0].lost[0].second;
  EXPECT_EQ(rx[1].got, 4);
}

}  // namespace
