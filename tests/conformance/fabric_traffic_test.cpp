// Conformance: delivery, ordering and integrity of frames, on every backend.
#include <gtest/gtest.h>

#include "harness.hpp"

namespace conformance {
namespace {

class FabricTraffic : public testing::TestWithParam<std::string> {
 protected:
  bool start(Job& job, int n, interlace::Config cfg = test_config()) {
    if (job.make(GetParam(), n, cfg)) return true;
    return false;
  }
};

#define START_OR_SKIP(job, ...)                                  \
  do {                                                           \
    if (!start(job, __VA_ARGS__)) {                              \
      if (!job.skip_reason.empty()) GTEST_SKIP() << job.skip_reason; \
      return;                                                    \
    }                                                            \
  } while (0)

// Every rank sends `count` frames of `len` bytes to each rank in `to`, round robin.
void send_stream(Fabric& f, Recorder& rec, int self, const std::vector<int>& to, uint32_t count,
                 size_t len) {
  std::vector<std::byte> buf;
  for (uint32_t seq = 0; seq < count; ++seq) {
    for (int peer : to) {
      fill_payload(buf, len, self, peer, seq);
      send_retry(f, rec, peer, make_header(self, peer, seq, buf.data(), len), buf.data(), len);
    }
  }
}

std::vector<int> all_ranks(int n, int except = -1) {
  std::vector<int> v;
  for (int r = 0; r < n; ++r)
    if (r != except) v.push_back(r);
  return v;
}

TEST_P(FabricTraffic, BasicProperties) {
  Job job;
  START_OR_SKIP(job, 2);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(job.fabrics[r]->rank(), r);
    EXPECT_EQ(job.fabrics[r]->size(), 2);
    EXPECT_EQ(std::string(job.fabrics[r]->name()), GetParam());
    EXPECT_GE(job.fabrics[r]->max_payload(), 4096u);
  }
}

TEST_P(FabricTraffic, OrderedDeliveryBetweenAPair) {
  Job job;
  START_OR_SKIP(job, 2);
  constexpr uint32_t kCount = 20000;
  job.run([&](int r, Recorder& rec) {
    Fabric& f = *job.fabrics[r];
    if (r == 0) send_stream(f, rec, 0, {1}, kCount, 8);
    else EXPECT_TRUE(pump_until(f, rec, [&] { return rec.frames.size() >= kCount; }));
  });
  expect_stream(job.recorders[1], 1, {0}, kCount);
}

TEST_P(FabricTraffic, PayloadSizesSurviveIntact) {
  Job job;
  START_OR_SKIP(job, 2);
  const size_t maxp = job.fabrics[0]->max_payload();
  const std::vector<size_t> sizes = {0, 1, 8, 63, 64, 65, 4096, maxp};
  constexpr int kRounds = 5;  // several laps of the ring, so wrap-around is exercised
  job.run([&](int r, Recorder& rec) {
    Fabric& f = *job.fabrics[r];
    if (r == 0) {
      std::vector<std::byte> buf;
      uint32_t seq = 0;
      for (int round = 0; round < kRounds; ++round) {
        for (size_t len : sizes) {
          fill_payload(buf, len, 0, 1, seq);
          send_retry(f, rec, 1, make_header(0, 1, seq, buf.data(), len), buf.data(), len);
          ++seq;
        }
      }
    } else {
      EXPECT_TRUE(pump_until(f, rec, [&] { return rec.frames.size() >= sizes.size() * kRounds; }));
    }
  });
  const auto& rec = job.recorders[1];
  expect_stream(rec, 1, {0}, static_cast<uint32_t>(sizes.size() * kRounds));
  for (size_t i = 0; i < rec.frames.size(); ++i)
    EXPECT_EQ(rec.frames[i].payload.size(), sizes[i % sizes.size()]) << "frame " << i;
}

TEST_P(FabricTraffic, EveryPairOfFourRanksAtOnce) {
  Job job;
  START_OR_SKIP(job, 4);
  constexpr uint32_t kCount = 2000;
  job.run([&](int r, Recorder& rec) {
    Fabric& f = *job.fabrics[r];
    send_stream(f, rec, r, all_ranks(4, r), kCount, 24);
    EXPECT_TRUE(pump_until(f, rec, [&] { return rec.frames.size() >= 3 * kCount; }));
  });
  for (int r = 0; r < 4; ++r) expect_stream(job.recorders[r], r, all_ranks(4, r), kCount);
}

TEST_P(FabricTraffic, AllToAllEightRanksIncludingSelf) {
  Job job;
  START_OR_SKIP(job, 8);
  constexpr uint32_t kCount = 300;
  job.run([&](int r, Recorder& rec) {
    Fabric& f = *job.fabrics[r];
    send_stream(f, rec, r, all_ranks(8), kCount, 100 + 37 * r);
    EXPECT_TRUE(pump_until(f, rec, [&] { return rec.frames.size() >= 8 * kCount; }));
  });
  for (int r = 0; r < 8; ++r) expect_stream(job.recorders[r], r, all_ranks(8), kCount);
}

TEST_P(FabricTraffic, SelfSend) {
  Job job;
  START_OR_SKIP(job, 1);
  Fabric& f = *job.fabrics[0];
  Recorder& rec = job.recorders[0];
  constexpr uint32_t kCount = 5000;
  send_stream(f, rec, 0, {0}, kCount, 40);
  EXPECT_TRUE(pump_until(f, rec, [&] { return rec.frames.size() >= kCount; }));
  expect_stream(rec, 0, {0}, kCount);
}

TEST_P(FabricTraffic, FullRingWithSlowReceiverLosesNothing) {
  interlace::Config cfg = test_config();
  cfg.shm_ring_bytes = 8192;  // tiny, so the sender hits would_block constantly
  Job job;
  START_OR_SKIP(job, 2, cfg);
  constexpr uint32_t kCount = 4000;
  std::atomic<size_t> blocked{0};
  job.run([&](int r, Recorder& rec) {
    Fabric& f = *job.fabrics[r];
    if (r == 0) {
      std::vector<std::byte> buf;
      const size_t maxp = std::min<size_t>(f.max_payload(), 3000);
      for (uint32_t seq = 0; seq < kCount; ++seq) {
        const size_t len = (seq * 131u) % (maxp + 1);
        fill_payload(buf, len, 0, 1, seq);
        blocked += send_retry(f, rec, 1, make_header(0, 1, seq, buf.data(), len), buf.data(), len);
      }
    } else {
      // Drain a few frames at a time with pauses, so the ring is full most of the time.
      const auto deadline = interlace::Deadline::after(30);
      while (rec.frames.size() < kCount && !deadline.expired()) {
        f.progress(rec);
        if (rec.frames.size() % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
  });
  expect_stream(job.recorders[1], 1, {0}, kCount);
  if (GetParam() == "shm") EXPECT_GT(blocked.load(), 0u) << "the ring never filled up";
}

INSTANTIATE_TEST_SUITE_P(Backends, FabricTraffic, testing::Values("shm", "tcp", "udp", "sim", "shm+tcp", "ucx"), fabric_param_name);

}  // namespace
}  // namespace conformance
