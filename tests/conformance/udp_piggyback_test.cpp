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

// Runs kTrips round trips, one rank at a time, and returns the standalone acks sent.
uint64_t ping_pong_acks(uint32_t trips) {
  Job job;
  EXPECT_TRUE(job.make("udp", 2));
  if (job.fabrics.size() != 2) return 0;
  Recorder& rec0 = job.recorders[0];
  Recorder& rec1 = job.recorders[1];
  for (uint32_t seq = 0; seq < trips; ++seq) {
    send_one(job, 0, seq, 8 + seq % 3 * 500);
    EXPECT_TRUE(spin(*job.fabrics[1], rec1, [&] { return rec1.frames.size() == seq + 1; }));
    send_one(job, 1, seq, 8);
    EXPECT_TRUE(spin(*job.fabrics[0], rec0, [&] { return rec0.frames.size() == seq + 1; }));
  }
  expect_stream(rec1, 1, {0}, trips);
  expect_stream(rec0, 0, {1}, trips);
  return udp_test::udp(*job.fabrics[0]).standalone_acks() +
         udp_test::udp(*job.fabrics[1]).standalone_acks();
}

TEST(UdpPiggyback, PingPongSendsAlmostNoStandaloneAcks) {
  constexpr uint32_t kTrips = 200;
  {
    ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"}};
    // Every ack but the first few (before either side had sent data) and any after
    // a scheduling pause longer than kPiggyWindowS rides on the reply.
    EXPECT_LT(ping_pong_acks(kTrips), kTrips / 2);
  }
  {
    // Turned off, every message is acknowledged by a datagram of its own.
    ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"}, {"INTERLACE_UDP_PIGGYBACK", "0"}};
    EXPECT_GE(ping_pong_acks(kTrips), 2 * kTrips);
  }
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
