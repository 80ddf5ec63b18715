// tcp fabric: a peer whose connection closes is reported lost, after its frames.
#include "tcp_test_util.hpp"

namespace {
using namespace tcp_test;

TEST(TcpFabricLostPeer, ClosedPeerReportedAfterItsFrames) {
  for (bool unread_data : {false, true}) {
    Job job("closed");
    auto a = job.make(0, 2), b = job.make(1, 2);
    Recorder ra, rb;
    auto p = pattern(1000, 4);
    // With unread data, b's close resets a's sending socket instead of a clean FIN.
    if (unread_data) {
      for (int i = 0; i < 20; ++i) ASSERT_EQ(a->send(1, header(0, 1, i, 1000), p.data(), 1000), Errc::ok);
    }
    for (int i = 0; i < 50; ++i) ASSERT_EQ(b->send(0, header(1, 0, i, 1000), p.data(), 1000), Errc::ok);
    b.reset();
    uint64_t t0 = now_ns();
    ASSERT_TRUE(pump_until({a.get()}, {&ra}, [&] { return !ra.lost.empty(); }, 10));
    EXPECT_LT(now_ns() - t0, 4'000'000'000u);
    ASSERT_EQ(ra.frames.size(), 50u) << "frames sent before the close must be delivered first";
    for (int i = 0; i < 50; ++i) EXPECT_EQ(ra.frames[i].h.seq, static_cast<uint32_t>(i));
    EXPECT_EQ(ra.lost[0].first, 1);
    EXPECT_NE(ra.lost[0].second.find("closed"), std::string::npos) << ra.lost[0].second;
    Errc e = Errc::ok;
    for (int i = 0; i < 100 && e == Errc::ok; ++i) e = a->send(1, header(0, 1, i, 8), p.data(), 8);
    EXPECT_EQ(e, Errc::lost_peer);
    a->check_peers(ra);
    EXPECT_EQ(ra.lost.size(), 1u) << "reported once";
  }
}

TEST(TcpFabricLostPeer, PeerAnsweringOnOurConnectionIsLostAfterItsFrames) {
  Job job("shared");
  auto a = job.make(0, 2), b = job.make(1, 2);
  Recorder ra, rb;
  auto p = pattern(100, 2);
  ASSERT_EQ(a->send(1, header(0, 1, 0, 100), p.data(), 100), Errc::ok);
  ASSERT_TRUE(pump_until({a.get(), b.get()}, {&ra, &rb}, [&] { return rb.frames.size() == 1; }));
  for (int i = 0; i < 30; ++i) ASSERT_EQ(b->send(0, header(1, 0, i, 100), p.data(), 100), Errc::ok);
  b.reset();
  uint64_t t0 = now_ns();
  ASSERT_TRUE(pump_until({a.get()}, {&ra}, [&] { return !ra.lost.empty(); }, 10));
  // No grace period: b sent on a's connection, so no other connection of b can follow.
  EXPECT_LT(now_ns() - t0, 400'000'000u);
  ASSERT_EQ(ra.frames.size(), 30u);
  EXPECT_EQ(ra.frames.back().h.seq, 29u);
  EXPECT_EQ(ra.lost[0].first, 1);
  EXPECT_EQ(a->send(1, header(0, 1, 1, 100), p.data(), 100), Errc::lost_peer);
}

TEST(TcpFabricLostPeer, SenderSeesReceiverGoneWithinBoundedTime) {
  Job job("gone");
  auto a = job.make(0, 2), b = job.make(1, 2);
  Recorder ra, rb;
  auto p = pattern(8, 1);
  ASSERT_EQ(a->send(1, header(0, 1, 0, 8), p.data(), 8), Errc::ok);
  ASSERT_TRUE(pump_until({a.get(), b.get()}, {&ra, &rb}, [&] { return rb.frames.size() == 1; }));
  b.reset();  // a only sends to b; it learns through its sending socket
  uint64_t t0 = now_ns();
  ASSERT_TRUE(pump_until({a.get()}, {&ra}, [&] {
    a->wait(0.05);
    return !ra.lost.empty();
  }, 10));
  EXPECT_LT(now_ns() - t0, 4'000'000'000u);
  EXPECT_EQ(ra.lost[0].first, 1);
  EXPECT_EQ(a->send(1, header(0, 1, 1, 8), p.data(), 8), Errc::lost_peer);
}

TEST(TcpFabricLostPeer, UnpublishedPeerIsLostNamingIt) {
  Job job("unpublished", 0.3);
  auto a = job.make(0, 2);  // rank 1 never starts
  Recorder ra;
  auto p = pattern(8, 1);
  uint64_t t0 = now_ns();
  EXPECT_EQ(a->send(1, header(0, 1, 0, 8), p.data(), 8), Errc::lost_peer);
  EXPECT_GE(now_ns() - t0, 250'000'000u);
  EXPECT_LT(now_ns() - t0, 3'000'000'000u);
  a->check_peers(ra);
  ASSERT_EQ(ra.lost.size(), 1u);
  EXPECT_EQ(ra.lost[0].first, 1);
  EXPECT_NE(ra.lost[0].second.find("rank 1"), std::string::npos) << ra.lost[0].second;
}

}  // namespace
