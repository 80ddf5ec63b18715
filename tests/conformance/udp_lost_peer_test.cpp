// udp fabric: a silent peer is lost within INTERLACE_UDP_PEER_TIMEOUT, after its
// frames were delivered; a receiver that does not progress bounds the sender's
// memory (send() says would_block) and loses nothing once it resumes.
#include "udp_test_util.hpp"

namespace conformance {
namespace {

using udp_test::ScopedEnv;

TEST(UdpLostPeer, ASilentPeerIsLostWithinTheBoundAfterItsFramesWereDelivered) {
  // A window wide enough for all 50 frames: they all leave rank 1 before it dies.
  ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"}, {"INTERLACE_UDP_PEER_TIMEOUT", "1"},
                {"INTERLACE_UDP_WINDOW", "256"}};
  Job job;
  ASSERT_TRUE(job.make("udp", 2));
  Recorder& rec0 = job.recorders[0];
  std::vector<std::byte> buf;
  for (uint32_t seq = 0; seq < 50; ++seq) {
    fill_payload(buf, 3000, 1, 0, seq);
    send_retry(*job.fabrics[1], job.recorders[1], 0, make_header(1, 0, seq, buf.data(), 3000),
               buf.data(), 3000);
  }
  // Rank 1 goes away without a word; its datagrams wait in rank 0's socket.
  job.fabrics[1]->progress(job.recorders[1]);
  job.fabrics[1].reset();
  const double t0 = interlace::now_s();
  job.fabrics[0]->watch_peer(1);
  while (rec0.lost.empty() && interlace::now_s() - t0 < 15) {
    job.fabrics[0]->progress(rec0);
    job.fabrics[0]->check_peers(rec0);
    job.fabrics[0]->wait(0.05);
  }
  ASSERT_EQ(rec0.lost.size(), 1u) << "no loss reported within 15 s";
  EXPECT_EQ(rec0.lost[0].first, 1);
  EXPECT_LT(interlace::now_s() - t0, 10.0);
  EXPECT_EQ(rec0.frames_at_loss, 50u) << "the loss was reported before rank 1's frames";
  expect_stream(rec0, 0, {1}, 50);
}

TEST(UdpLostPeer, ASlowReceiverMakesSendWouldBlockAndLosesNothing) {
  ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"}};
  Job job;
  ASSERT_TRUE(job.make("udp", 2));
  Fabric& f0 = *job.fabrics[0];
  Recorder& rec0 = job.recorders[0];
  // Rank 1 does not progress: its acknowledgements and clear-to-sends never come.
  std::vector<std::byte> buf;
  uint32_t taken = 0;
  size_t bytes = 0;
  for (int round = 0; round < 2; ++round) {
    const size_t len = round == 0 ? 1000 : (1 << 20);
    for (int i = 0; i < 20000; ++i) {
      fill_payload(buf, len, 0, 1, taken);
      const Errc e = f0.send(1, make_header(0, 1, taken, buf.data(), len), buf.data(), len);
      if (e == Errc::would_block) break;
      ASSERT_EQ(e, Errc::ok);
      ++taken;
      bytes += len;
      f0.progress(rec0);
    }
    // Bounded: the queue limit (4 MiB) plus one frame, never the 20000 frames offered.
    EXPECT_LT(bytes, (4u << 20) + (2u << 20) + 1000u * 64) << "round " << round;
    EXPECT_EQ(f0.send(1, make_header(0, 1, taken, buf.data(), len), buf.data(), len),
              Errc::would_block);
    // Drain before the large round so that round measures its own bound.
    if (round == 0) {
      ASSERT_TRUE(pump_until(*job.fabrics[1], job.recorders[1],
                             [&] {
                               f0.progress(rec0);
                               return job.recorders[1].frames.size() == taken;
                             },
                             30));
      bytes = 0;
    }
  }
  job.run([&](int r, Recorder& rec) {
    if (r == 1) {
      EXPECT_TRUE(pump_until(*job.fabrics[1], rec, [&] { return rec.frames.size() == taken; }, 60));
    }
  });
  expect_stream(job.recorders[1], 1, {0}, taken);
}

}  // namespace
}  // namespace conformance
