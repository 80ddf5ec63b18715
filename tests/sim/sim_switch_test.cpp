// Switched presets (accl, cloudfpga): every rank hangs off one switch port, so traffic
// from many senders to one receiver shares that receiver's port (incast) and a
// sender's traffic to many receivers shares its own. With a link per pair (the direct
// model of smi/fshmem) a gather to one root once took as long as a single transfer.
#include <gtest/gtest.h>

#include <vector>

#include "interlace/clock.h"
#include "interlace/interlace.hpp"
#include "sim_util.hpp"

using namespace interlace;

namespace {

constexpr size_t kBytes = 1 << 20;

// Seconds from a common start until rank 0 holds `senders` messages of kBytes, one
// from each of ranks 1..senders (or, with `fan_out`, until ranks 1..senders each got
// one from rank 0).
double transfer(const char* preset, int senders, bool fan_out) {
  simtest::ScopedEnv e("INTERLACE_SIM_PRESET", preset);
  double secs = 0;
  run_ranks_as_threads(senders + 1, [&](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<char> buf(kBytes, 'x');
    const double t0 = interlace_wtime();  // every clock starts at the job's start
    if (w.rank() == 0) {
      std::vector<Request> q;
      std::vector<std::vector<char>> in(senders, std::vector<char>(kBytes));
      for (int r = 1; r <= senders; ++r)
        q.push_back(fan_out ? w.isend(buf.data(), kBytes, Datatype::bytes, r, 0)
                            : w.irecv(in[r - 1].data(), kBytes, Datatype::bytes, r, 0));
      for (auto& x : q) x.wait();
      if (!fan_out) secs = interlace_wtime() - t0;
    } else {
      if (fan_out) w.recv(buf.data(), kBytes, Datatype::bytes, 0, 0);
      else w.send(buf.data(), kBytes, Datatype::bytes, 0, 0);
    }
    coll::barrier(w);
    if (fan_out && w.rank() == 0) secs = interlace_wtime() - t0;
  }, "sim");
  return secs;
}

TEST(SimSwitch, IncastSharesTheReceiversPort) {
  // accl: 100 Gbit/s per port. Four 1 MiB messages into one port need four times the
  // wire time of one (84 us each), not about one.
  const double one = transfer("accl", 1, false), four = transfer("accl", 4, false);
  EXPECT_GT(four, 3.5 * one) << "one " << one << " s, four " << four << " s";
  EXPECT_GT(four, 4 * kBytes * 8 / 100e9);
}

TEST(SimSwitch, FanOutSharesTheSendersPort) {
  const double one = transfer("cloudfpga", 1, true), four = transfer("cloudfpga", 4, true);
  EXPECT_GT(four, 3.5 * one) << "one " << one << " s, four " << four << " s";
}

}  // namespace
