// udp fabric: acknowledgements ride on data going the other way, so a request-reply
// exchange costs one datagram per message; an ack no reply carries still goes out by
// the receiver's next progress round or wait().
#include <gtest/gtest.h>

#include "udp_test_util.hpp"

namespace conformance {
namespace {

using udp_test::ScopedEnv;

// Progresses only f (no wait(), which would flush its deferred acks) until pred().
bool spin(Fabric& f, Recorder& rec, const std::function<bool()>& pred) {
  const auto deadline = interlace::Deadline::after(20);
  while (!pred() && !deadline.expired()) f.progress(rec);
  return pred();
}

void send_one(Job& job, int from, uint32_t seq, size_t len) {
  std::vector<std::byte> buf;
  fill_payload(buf, len, from, 1 - from, seq);
  send_retry(*job.fabrics[from], job.recorders[from], 1 - from,
             make_header(from, 1 - from, seq, buf.data(), len), buf.data(), len);
}

TEST(UdpPiggyback, PingPongSendsAlmostNoStandaloneAcks) {
  ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"}};
  Job job;
  ASSERT_TRUE(job.make("udp", 2));
  Recorder& rec0 = job.recorders[0];
  Recorder& rec1 = job.recorders[1];
  constexpr uint32_t kTrips = 200;
  for (uint32_t seq = 0; seq < kTrips; ++seq) {
    send_one(job, 0, seq, 8 + seq % 3 * 500);
    ASSERT_TRUE(spin(*job.fabrics[1], rec1, [&] { return rec1.frames.size() == seq + 1; }));
    send_one(job, 1, seq, 8);
    ASSERT_TRUE(spin(*job.fabrics[0], rec0, [&] { return rec0.frames.size() == seq + 1; }));
  }
  expect_stream(rec1, 1, {0}, kTrips);
  expect_stream(rec0, 0, {1}, kTrips);
  // Every ack but the first few (before either side had sent data) and any after a
  // scheduling pause longer than kPiggyWindowS rides on the reply; with an ack
  // datagram per message this would be 2 * kTrips.
  const uint64_t acks = udp_test::udp(*job.fabrics[0]).standalone_acks() +
                        udp_test::udp(*job.fabrics[1]).standalone_acks();
  EXPECT_LT(acks, kTrips / 2) << "standalone acks in " << kTrips << " round trips";
}

TEST(UdpPiggyback, AnAckNoReplyCarriesGoesOutByTheNextRoundOrWait) {
  ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"}};
  Job job;
  ASSERT_TRUE(job.make("udp", 2));
  auto& f0 = udp_test::udp(*job.fabrics[0]);
  Fabric& f1 = *job.fabrics[1];
  Recorder& rec0 = job.recorders[0];
  Recorder& rec1 = job.recorders[1];
  // Rank 1 has just sent data, so it expects to reply and defers its acks.
  send_one(job, 1, 0, 8);
  ASSERT_TRUE(spin(f0, rec0, [&] { return rec0.frames.size() == 1; }));
  for (uint32_t seq = 0; seq < 2; ++seq) {
    send_one(job, 0, seq, 8);
    ASSERT_TRUE(spin(f1, rec1, [&] { return rec1.frames.size() == seq + 1; }));
    // Rank 1 never replies: one more round (seq 0) or a wait() (seq 1) sends the ack.
    if (seq == 0) f1.progress(rec1);
    else f1.wait(0);
    EXPECT_TRUE(spin(f0, rec0, [&] { return f0.in_flight() == 0; }))
        << "frame " << seq << " still unacknowledged";
  }
  expect_stream(rec1, 1, {0}, 2);
}

}  // namespace
}  // namespace conformance
