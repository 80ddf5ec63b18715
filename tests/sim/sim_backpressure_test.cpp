// Full buffers on the sim fabric: a send refused because the pair's rings are full
// must let virtual time pass. PGAS active messages retry such a send without calling
// progress; while the retries cost no virtual time the sender stays the earliest rank,
// gets the baton back at once and the receiver never runs to make room (a livelock:
// FSHMEM's 256 KiB puts never finished). Run in a child process with an alarm, so the
// old behaviour fails the test instead of hanging it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "interlace/clock.h"
#include "interlace/coll/coll.hpp"
#include "interlace/interlace.hpp"
#include "interlace/pgas/pgas.hpp"
#include "sim_util.hpp"

using namespace interlace;

namespace {

// Rank 0 puts `bytes` into rank 1 in one call: more than the pair's 256 KiB ring.
// Exits 0 when the data arrived and took at least its serialisation time on the
// preset's links (`link_gbps`).
void put_through_full_ring(const char* preset, size_t bytes, double link_gbps) {
  alarm(60);  // the livelock spins for ever; 60 s is far beyond a correct run
  simtest::ScopedEnv e("INTERLACE_SIM_PRESET", preset);
  bool ok = true;
  double secs = 0;
  run_ranks_as_threads(2, [&](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 4 << 20);
    auto* buf = static_cast<unsigned char*>(p.malloc(bytes));
    std::vector<unsigned char> src(bytes);
    for (size_t i = 0; i < bytes; ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
    p.quiet_all();
    coll::barrier(rt.world());
    const double t0 = interlace_wtime();
    if (p.my_pe() == 0) {
      p.put(p.default_domain(), buf, src.data(), bytes, 1);
      p.quiet_all();
      secs = interlace_wtime() - t0;
    }
    coll::barrier(rt.world());
    if (p.my_pe() == 1 && std::memcmp(buf, src.data(), bytes) != 0) ok = false;
  }, "sim");
  std::exit(ok && secs >= bytes * 8 / (link_gbps * 1e9) ? 0 : 1);
}

TEST(SimBackpressure, PutLargerThanThePairRingFinishes) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(put_through_full_ring("fshmem", 1 << 20, 32), ::testing::ExitedWithCode(0), "");
}

TEST(SimBackpressure, PutLargerThanThePairRingFinishesOnEveryPreset) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const struct { const char* name; double gbps; } presets[] = {{"smi", 40}, {"accl", 100}, {"cloudfpga", 10}};
  for (const auto& p : presets)
    EXPECT_EXIT(put_through_full_ring(p.name, 1 << 20, p.gbps), ::testing::ExitedWithCode(0), "") << p.name;
}

}  // namespace

namespace {

// A sender whose frames each have a start-up cost (accl: send_ns 2 us, the CCLO
// invocation) still streams a large message at the link rate: the start-up overlaps
// the previous frames' packets, which drain at the link's pace (the first hop's
// back-pressure on the sender). It once drained at the injector's 4 ns per packet, so
// every frame found the sender idle and paid 2 us serially: 74 instead of 98 Gbit/s.
TEST(SimBackpressure, StartupCostOverlapsAStreamAtLinkRate) {
  simtest::ScopedEnv e("INTERLACE_SIM_PRESET", "accl");
  constexpr size_t kBytes = 8 << 20;
  double gbps = 0;
  run_ranks_as_threads(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<char> buf(kBytes, 'x');
    if (w.rank() == 0) {
      const double t0 = interlace_wtime();
      w.send(buf.data(), kBytes, Datatype::bytes, 1, 0);
      w.send(&t0, 1, Datatype::float64, 1, 1);
    } else {
      w.recv(buf.data(), kBytes, Datatype::bytes, 0, 0);
      const double t1 = interlace_wtime();
      double t0 = 0;
      w.recv(&t0, 1, Datatype::float64, 0, 1);
      gbps = kBytes * 8 / (t1 - t0) * 1e-9;
    }
  }, "sim");
  // RoCE frames of 4096 B payload in 4154 B on 100 Gbit/s: at most 98.6 Gbit/s.
  EXPECT_GT(gbps, 90) << "large message at " << gbps << " Gbit/s";
  EXPECT_LT(gbps, 98.7);
}

}  // namespace
