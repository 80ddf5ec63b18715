// udp fabric: exactly-once, in-order delivery under injected loss, duplication,
// reordering and delay, in both modes; large frames through the handshake; lost
// acknowledgements; an outage of a few seconds.
#include <gtest/gtest.h>

#include <cstdio>
#include <tuple>

#include "udp_test_util.hpp"

namespace conformance {
namespace {

using udp_test::ScopedEnv;

// Both ranks stream `count` frames of mixed sizes (one to three datagrams) to
// each other at once and check what they received.
void exchange(Job& job, uint32_t count, size_t max_len, double timeout_s) {
  job.run([&](int r, Recorder& rec) {
    Fabric& f = *job.fabrics[r];
    const int peer = 1 - r;
    std::vector<std::byte> buf;
    for (uint32_t seq = 0; seq < count; ++seq) {
      const size_t len = (seq * 977u + 13u * r) % (max_len + 1);
      fill_payload(buf, len, r, peer, seq);
      send_retry(f, rec, peer, make_header(r, peer, seq, buf.data(), len), buf.data(), len, timeout_s);
    }
    EXPECT_TRUE(pump_until(f, rec, [&] { return rec.frames.size() >= count; }, timeout_s))
        << "rank " << r << " got " << rec.frames.size() << " of " << count;
  });
  for (int r = 0; r < 2; ++r) expect_stream(job.recorders[r], r, {1 - r}, count);
}

// Drives both ranks of a job from this thread until pred() or 20 s.
bool pump_both(Job& job, const std::function<bool()>& pred) {
  const auto deadline = interlace::Deadline::after(20);
  while (!pred() && !deadline.expired()) {
    int n = 0;
    for (size_t r = 0; r < job.fabrics.size(); ++r) n += job.fabrics[r]->progress(job.recorders[r]);
    if (n == 0) job.fabrics[0]->wait(0.001);
  }
  return pred();
}

class UdpLoss : public testing::TestWithParam<std::tuple<const char*, double>> {};

TEST_P(UdpLoss, ExactlyOnceInOrderUnderDropDupReorderDelay) {
  const auto [mode, drop] = GetParam();
  char faults[160];
  std::snprintf(faults, sizeof faults, "drop=%g,dup=0.05,reorder=0.05,delay_ms=2,seed=%d", drop,
                static_cast<int>(drop * 100) + 3);
  ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"},
                {"INTERLACE_UDP_MODE", mode},
                {"INTERLACE_UDP_WINDOW", std::string(mode) == "gbn" ? "4" : "32"},
                {"INTERLACE_UDP_FAULTS", faults}};
  Job job;
  ASSERT_TRUE(job.make("udp", 2));
  // Fewer frames at 30%: go-back-N with OMPIF's window of 4 resends whole windows.
  exchange(job, drop >= 0.3 ? 150 : 400, 3000, 90);
}

std::string loss_name(const testing::TestParamInfo<UdpLoss::ParamType>& info) {
  return std::string(std::get<0>(info.param)) + "_" +
         std::to_string(static_cast<int>(std::get<1>(info.param) * 100)) + "pct";
}

INSTANTIATE_TEST_SUITE_P(Matrix, UdpLoss,
                         testing::Combine(testing::Values("sr", "gbn"),
                                          testing::Values(0.01, 0.10, 0.30)),
                         loss_name);

TEST(UdpReliability, LargeFramesGoThroughTheHandshakeUnderLoss) {
  for (const char* mode : {"sr", "gbn"}) {
    SCOPED_TRACE(mode);
    ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"},
                  {"INTERLACE_UDP_MODE", mode},
                  {"INTERLACE_UDP_FAULTS", "drop=0.05,dup=0.02,reorder=0.02,seed=11"}};
    Job job;
    ASSERT_TRUE(job.make("udp", 2));
    // Small and large frames interleaved: the large ones (256 KiB, 1 MiB) wait for
    // clear-to-send while the small ones behind them must keep their order.
    const std::vector<size_t> sizes = {100, 256 << 10, 8, 1 << 20, 70000, 0, 1 << 20, 5};
    job.run([&](int r, Recorder& rec) {
      Fabric& f = *job.fabrics[r];
      if (r == 0) {
        std::vector<std::byte> buf;
        for (uint32_t seq = 0; seq < sizes.size(); ++seq) {
          fill_payload(buf, sizes[seq], 0, 1, seq);
          send_retry(f, rec, 1, make_header(0, 1, seq, buf.data(), sizes[seq]), buf.data(),
                     sizes[seq], 90);
        }
      } else {
        EXPECT_TRUE(pump_until(f, rec, [&] { return rec.frames.size() >= sizes.size(); }, 90));
      }
    });
    expect_stream(job.recorders[1], 1, {0}, static_cast<uint32_t>(sizes.size()));
  }
}

TEST(UdpReliability, LostFinalAcknowledgementsAreRepairedByReAcknowledging) {
  // Half of all acknowledgements and clear-to-sends vanish, the final ones included:
  // the sender retransmits, the receiver answers the duplicate, nothing hangs and
  // nothing is delivered twice.
  ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"},
                {"INTERLACE_UDP_FAULTS", "ack_drop=0.5,seed=5"}};
  Job job;
  ASSERT_TRUE(job.make("udp", 2));
  auto& sender = udp_test::udp(*job.fabrics[0]);
  Recorder& rec0 = job.recorders[0];
  Recorder& rec1 = job.recorders[1];
  std::vector<std::byte> buf;
  for (uint32_t seq = 0; seq < 20; ++seq) {
    const size_t len = seq % 4 == 3 ? (200 << 10) : 1000;
    fill_payload(buf, len, 0, 1, seq);
    send_retry(sender, rec0, 1, make_header(0, 1, seq, buf.data(), len), buf.data(), len);
    // One frame at a time, so that each one's last acknowledgement is a final one.
    ASSERT_TRUE(pump_both(job, [&] { return rec1.frames.size() == seq + 1 && sender.in_flight() == 0; }))
        << "frame " << seq << ": delivered " << rec1.frames.size() << ", in flight "
        << sender.in_flight();
  }
  expect_stream(rec1, 1, {0}, 20);
  EXPECT_TRUE(rec0.lost.empty());
}

TEST(UdpReliability, AnOutageOfSeveralSecondsLosesNothing) {
  // Every datagram of both ranks vanishes from 0.3 s to 3.3 s after start (a link
  // down); the peer timeout is longer, so the stream resumes and completes.
  ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"},
                {"INTERLACE_UDP_PEER_TIMEOUT", "20"},
                {"INTERLACE_UDP_FAULTS", "down=0.3:3"}};
  Job job;
  ASSERT_TRUE(job.make("udp", 2));
  const double t0 = interlace::now_s();
  job.run([&](int r, Recorder& rec) {
    Fabric& f = *job.fabrics[r];
    const int peer = 1 - r;
    std::vector<std::byte> buf;
    for (uint32_t seq = 0; seq < 200; ++seq) {
      fill_payload(buf, 500, r, peer, seq);
      send_retry(f, rec, peer, make_header(r, peer, seq, buf.data(), 500), buf.data(), 500, 60);
      // Paced, so that the stream spans the outage.
      if (seq % 10 == 0) pump_until(f, rec, [] { return false; }, 0.05);
    }
    EXPECT_TRUE(pump_until(f, rec, [&] { return rec.frames.size() >= 200; }, 60));
    EXPECT_TRUE(rec.lost.empty());
  });
  EXPECT_GT(interlace::now_s() - t0, 3.0) << "the stream did not span the outage";
  for (int r = 0; r < 2; ++r) expect_stream(job.recorders[r], r, {1 - r}, 200);
}

}  // namespace
}  // namespace conformance
