// The smi preset reproduces SMI's microbenchmarks (seed 000, sec. 5.3) within 10%:
// Table 3 (ping-pong latency at 1, 4 and 7 hops on a linear bus of 8), Fig. 9
// (bandwidth ~91% of the 35 Gbit/s payload peak, independent of hops) and Table 4
// (injection cycles against R). Virtual times are deterministic, so the bounds are the
// model's accuracy, not noise.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "interlace/clock.h"
#include "interlace/interlace.hpp"
#include "sim_util.hpp"

using namespace interlace;

namespace {

constexpr int kBus = 8;

// Half the round trip of a one-element (int32) ping-pong between ranks 0 and `hops`.
double pingpong_us(int hops, int iters = 20) {
  double lat = 0;
  run_ranks_as_threads(kBus, [&](Runtime& rt) {
    Communicator w = rt.world();
    int32_t x = 1;
    if (w.rank() == 0) {
      const double t0 = interlace_wtime();
      for (int i = 0; i < iters; ++i) {
        w.send(&x, 1, Datatype::int32, hops, 0);
        w.recv(&x, 1, Datatype::int32, hops, 0);
      }
      lat = (interlace_wtime() - t0) / (2 * iters) * 1e6;
    } else if (w.rank() == hops) {
      for (int i = 0; i < iters; ++i) {
        w.recv(&x, 1, Datatype::int32, 0, 0);
        w.send(&x, 1, Datatype::int32, 0, 0);
      }
    }
  }, "sim");
  return lat;
}

// Payload bits per second of one large message from rank 0 to rank `hops`, timed from
// the start of the send to the end of the receive (both virtual clocks start at 0).
double bandwidth_gbps(int hops, size_t bytes) {
  double gbps = 0;
  run_ranks_as_threads(kBus, [&](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<char> buf(bytes, 'x');
    if (w.rank() == 0) {
      const double t0 = interlace_wtime();
      w.send(buf.data(), bytes, Datatype::bytes, hops, 0);
      w.send(&t0, 1, Datatype::float64, hops, 1);
    } else if (w.rank() == hops) {
      w.recv(buf.data(), bytes, Datatype::bytes, 0, 0);
      const double t1 = interlace_wtime();
      double t0 = 0;
      w.recv(&t0, 1, Datatype::float64, 0, 1);
      gbps = bytes * 8 / (t1 - t0) * 1e-9;
    }
  }, "sim");
  return gbps;
}

// Kernel cycles between consecutive one-element messages from one endpoint, as SMI's
// injection benchmark (sec. 5.3.3): the sender issues a message per iteration without
// waiting; the receiver's clock at each arrival gives the spacing.
double injection_cycles(int R, int msgs = 400) {
  simtest::ScopedEnv r("INTERLACE_SIM_R", std::to_string(R));
  double cycles = 0;
  run_ranks_as_threads(kBus, [&](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<int32_t> v(msgs, 7);
    if (w.rank() > 1) return;
    if (w.rank() == 0) {
      std::vector<Request> reqs;
      for (int i = 0; i < msgs; ++i) reqs.push_back(w.isend(&v[i], 1, Datatype::int32, 1, 0));
      for (auto& q : reqs) q.wait();
    } else {
      w.recv(&v[0], 1, Datatype::int32, 0, 0);
      const double first = interlace_wtime();
      for (int i = 1; i < msgs; ++i) w.recv(&v[i], 1, Datatype::int32, 0, 0);
      const double last = interlace_wtime();
      cycles = (last - first) / (msgs - 1) * 271.7e6;  // smi preset kernel clock
    }
  }, "sim");
  return cycles;
}

class SmiFigures : public testing::Test {
 protected:
  simtest::TempDir dir;
  std::optional<simtest::ScopedEnv> routes, preset;
  void SetUp() override {
    simtest::write_bus_routes(dir.path, kBus);
    routes.emplace("INTERLACE_ROUTES", dir.path.string());
    preset.emplace("INTERLACE_SIM_PRESET", "smi");
  }
};

TEST_F(SmiFigures, Table3LatencyAt1_4_7Hops) {
  const double paper[] = {0.801, 2.896, 5.103};
  const int hops[] = {1, 4, 7};
  for (int i = 0; i < 3; ++i) {
    const double us = pingpong_us(hops[i]);
    RecordProperty("latency_us_" + std::to_string(hops[i]), std::to_string(us));
    std::printf("SMI Table 3: %d hops %.4f us (paper %.3f)\n", hops[i], us, paper[i]);
    EXPECT_NEAR(us, paper[i], 0.10 * paper[i]) << hops[i] << " hops";
  }
}

TEST_F(SmiFigures, Fig9BandwidthIndependentOfHops) {
  const double target = 0.91 * 35.0;  // Gbit/s of payload
  for (int hops : {1, 7}) {
    const double g = bandwidth_gbps(hops, size_t{4} << 20);
    RecordProperty("gbps_" + std::to_string(hops), std::to_string(g));
    std::printf("SMI Fig. 9: %d hops %.3f Gbit/s (paper %.2f)\n", hops, g, target);
    EXPECT_NEAR(g, target, 0.10 * target) << hops << " hops";
  }
}

TEST_F(SmiFigures, Table4InjectionCyclesAgainstR) {
  const int R[] = {1, 4, 8, 16};
  const double paper[] = {5, 2.5, 1.8, 1.69};
  for (int i = 0; i < 4; ++i) {
    const double c = injection_cycles(R[i]);
    RecordProperty("cycles_R" + std::to_string(R[i]), std::to_string(c));
    std::printf("SMI Table 4: R=%d %.3f cycles (paper %.2f)\n", R[i], c, paper[i]);
    EXPECT_NEAR(c, paper[i], 0.10 * paper[i]) << "R=" << R[i];
  }
}

}  // namespace
