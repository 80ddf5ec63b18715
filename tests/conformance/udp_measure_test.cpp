// The measurement behind the udp defaults (docs/udp.md, "Choosing the defaults"):
// ping-pong latency and one-way bandwidth between two ranks (threads) on loopback,
// per mode, window and injected loss. Disabled: it times things, so it is run by
// hand, never as a pass/fail test:
//   conformance_tests --gtest_also_run_disabled_tests --gtest_filter='UdpMeasure.*'
//   (UDP_MEASURE="sr:32,gbn:4" and UDP_MEASURE_LOSS="0,0.1" pick the grid)
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "udp_test_util.hpp"

namespace conformance {
namespace {

using udp_test::ScopedEnv;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);) out.push_back(item);
  return out;
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = getenv(name);
  return v && *v ? v : fallback;
}

// Median round trip of `rounds` 8-byte ping-pongs, in microseconds.
double latency_us(Job& job, int rounds) {
  std::vector<double> rtt;
  job.run([&](int r, Recorder& rec) {
    Fabric& f = *job.fabrics[r];
    uint64_t x = 0;
    for (int i = 0; i < rounds; ++i) {
      const double t0 = interlace::now_s();
      if (r == 0) {
        send_retry(f, rec, 1, make_header(0, 1, i, &x, 8), &x, 8);
        pump_until(f, rec, [&] { return rec.frames.size() > static_cast<size_t>(i); }, 30);
        rtt.push_back((interlace::now_s() - t0) * 1e6);
      } else {
        pump_until(f, rec, [&] { return rec.frames.size() > static_cast<size_t>(i); }, 30);
        send_retry(f, rec, 0, make_header(1, 0, i, &x, 8), &x, 8);
      }
    }
  });
  std::sort(rtt.begin(), rtt.end());
  return rtt.empty() ? -1 : rtt[rtt.size() / 2];
}

// One-way goodput of `total` bytes in `frame`-byte frames, MB/s.
double bandwidth_mbs(Job& job, size_t total, size_t frame) {
  const uint32_t count = static_cast<uint32_t>(total / frame);
  std::vector<std::byte> buf(frame, std::byte{7});
  double t0 = 0, t1 = 0;
  job.run([&](int r, Recorder& rec) {
    Fabric& f = *job.fabrics[r];
    if (r == 0) {
      t0 = interlace::now_s();
      for (uint32_t i = 0; i < count; ++i)
        send_retry(f, rec, 1, make_header(0, 1, i, buf.data(), frame), buf.data(), frame, 120);
    } else {
      // Frames are not kept: only counted (the recorder would copy them all).
      struct Counter final : interlace::fabric::FrameSink {
        uint32_t n = 0;
        void on_frame(const FrameHeader&, const std::byte*) override { ++n; }
        void on_peer_lost(int, const std::string&) override {}
      } counter;
      const auto deadline = interlace::Deadline::after(120);
      int idle = 0;
      while (counter.n < count && !deadline.expired()) {
        if (f.progress(counter) > 0) idle = 0;
        else if (++idle > 64) f.wait(0.002);
      }
      t1 = interlace::now_s();
    }
  });
  return t1 > t0 ? total / (t1 - t0) / 1e6 : -1;
}

TEST(UdpMeasure, DISABLED_ModesWindowsAndLoss) {
  const auto configs = split(env_or("UDP_MEASURE", "gbn:4,gbn:32,sr:4,sr:32,sr:64"), ',');
  const auto losses = split(env_or("UDP_MEASURE_LOSS", "0,0.1"), ',');
  std::printf("%-8s %6s %6s %12s %14s %14s\n", "mode", "window", "loss", "latency_us",
              "bw_64KiB_MBs", "bw_1MiB_MBs");
  for (const std::string& loss : losses) {
    for (const std::string& c : configs) {
      const auto mw = split(c, ':');
      ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"},
                    {"INTERLACE_UDP_MODE", mw[0]},
                    {"INTERLACE_UDP_WINDOW", mw[1]},
                    {"INTERLACE_UDP_FAULTS", loss == "0" ? "" : "drop=" + loss + ",seed=3"}};
      Job job;
      ASSERT_TRUE(job.make("udp", 2));
      const double lat = latency_us(job, 2000);
      Job job2;
      ASSERT_TRUE(job2.make("udp", 2));
      const double bw64 = bandwidth_mbs(job2, 64u << 20, 64u << 10);
      Job job3;
      ASSERT_TRUE(job3.make("udp", 2));
      const double bw1m = bandwidth_mbs(job3, 64u << 20, 1u << 20);
      std::printf("%-8s %6s %6s %12.1f %14.1f %14.1f\n", mw[0].c_str(), mw[1].c_str(), loss.c_str(),
                  lat, bw64, bw1m);
      std::fflush(stdout);
    }
  }
}

}  // namespace
}  // namespace conformance
