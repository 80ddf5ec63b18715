// The ZRLMPI link against an in-process fake node: each test plays the node's side
// packet by packet (losing some), on a fake clock, and checks what the link sends
// and delivers. No sockets, no sleeping.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "fabric/udp/zrl_header.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/datatype.hpp"

using namespace interlace;
using namespace interlace::fabric;
using namespace interlace::fabric::udp;

namespace {

constexpr int kSelf = 0, kNode = 1;

struct Io : ZrlIo {
  std::vector<std::vector<std::byte>> sent;  // datagrams to kNode, in order
  bool send_datagram(int peer, const void* data, size_t len) override {
    EXPECT_EQ(peer, kNode);
    auto* p = static_cast<const std::byte*>(data);
    sent.emplace_back(p, p + len);
    return true;
  }
  // Types of the header packets sent since the last call (continuations: 0).
  std::vector<int> take_types() {
    std::vector<int> t;
    for (auto& d : sent) {
      ZrlHeader h;
      t.push_back(zrl_decode(d.data(), d.size(), &h).empty() ? h.type : 0);
    }
    sent.clear();
    return t;
  }
};

struct Frame {
  FrameHeader h;
  std::vector<std::byte> payload;
};

struct Sink : FrameSink {
  std::vector<Frame> frames;
  void on_frame(const FrameHeader& h, const std::byte* p) override {
    frames.push_back({h, std::vector<std::byte>(p, p + h.len)});
  }
  std::vector<std::string> lost;
  void on_peer_lost(int peer, const std::string& why) override {
    lost.push_back(std::to_string(peer) + ": " + why);
  }
};

std::vector<std::byte> header(uint32_t words, uint8_t call, uint8_t type, uint32_t dst = kSelf,
                              uint32_t src = kNode) {
  std::vector<std::byte> b(kZrlHeaderBytes);
  zrl_encode(ZrlHeader{dst, src, words, call, type}, b.data());
  return b;
}

// ZRLMPI's DATA datagrams for `data` (header + 1384 bytes, then 1416 per datagram).
std::vector<std::vector<std::byte>> data_datagrams(const std::vector<int32_t>& data, uint8_t call) {
  const auto* p = reinterpret_cast<const std::byte*>(data.data());
  const size_t n = data.size() * 4;
  std::vector<std::vector<std::byte>> out;
  auto first = header(static_cast<uint32_t>(data.size()), call, kZrlData);
  const size_t f = std::min(n, kZrlFirstPayload);
  first.insert(first.end(), p, p + f);
  out.push_back(first);
  for (size_t off = f; off < n; off += kZrlMaxDatagram)
    out.emplace_back(p + off, p + off + std::min(kZrlMaxDatagram, n - off));
  return out;
}

std::vector<int32_t> iota(size_t n, int32_t start) {
  std::vector<int32_t> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

class ZrlLinkTest : public ::testing::Test {
 protected:
  Io io;
  Sink sink;
  Config cfg;
  std::unique_ptr<ZrlLink> link = make_zrl_link(kSelf, 2, {false, true}, io, cfg);
  double t = now_s();

  void feed(const std::vector<std::byte>& d) { link->on_datagram(kNode, d.data(), d.size()); }
  int step(double dt = 0) {
    t += dt;
    return link->progress(sink, t);
  }
  // A rendezvous request for `v` as p2p sends it (payload: address, bytes, cookie).
  Errc send_rts(const std::vector<int32_t>& v, uint64_t cookie) {
    FrameHeader h;
    h.kind = kKindP2pRts;
    h.comm = 1;
    h.tag = 7;
    h.aux = v.size() * 4;
    uint64_t info[3] = {reinterpret_cast<uint64_t>(v.data()), v.size() * 4, cookie};
    return link->send(kNode, h, info, sizeof info);
  }
  std::vector<int32_t> sent_payload() {
    std::vector<std::byte> all;
    for (size_t i = 0; i < io.sent.size(); ++i) {
      const size_t skip = i == 0 ? kZrlHeaderBytes : 0;
      all.insert(all.end(), io.sent[i].begin() + static_cast<long>(skip), io.sent[i].end());
    }
    std::vector<int32_t> v(all.size() / 4);
    std::memcpy(v.data(), all.data(), v.size() * 4);
    return v;
  }
};

}  // namespace

TEST_F(ZrlLinkTest, SendRunsTheHandshakeAndCompletesOnAck) {
  const auto v = iota(1000, 5);  // 4000 bytes: 1384 + 1416 + 1200
  step();
  ASSERT_EQ(send_rts(v, 42), Errc::ok);
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlSendRequest}));
  feed(header(0, kZrlRecvInt, kZrlClearToSend));
  ASSERT_EQ(io.sent.size(), 3u);
  ZrlHeader h;
  ASSERT_EQ(zrl_decode(io.sent[0].data(), io.sent[0].size(), &h), "");
  EXPECT_EQ(h.type, kZrlData);
  EXPECT_EQ(h.call, kZrlSendInt);
  EXPECT_EQ(h.words, 1000u);
  EXPECT_EQ(h.dst, 1u);
  EXPECT_EQ(h.src, 0u);
  EXPECT_EQ(io.sent[0].size(), kZrlMaxDatagram);
  EXPECT_EQ(io.sent[1].size(), kZrlMaxDatagram);
  EXPECT_EQ(io.sent[2].size(), 1200u);
  EXPECT_EQ(sent_payload(), v);
  io.sent.clear();
  EXPECT_EQ(step(), 0);
  EXPECT_TRUE(sink.frames.empty()) << "complete before the ACK";
  feed(header(0, kZrlRecvInt, kZrlAck));
  EXPECT_EQ(step(), 1);
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0].h.kind, kKindP2pFin);
  EXPECT_EQ(sink.frames[0].h.aux, 42u);
  EXPECT_EQ(sink.frames[0].h.src, 1u);
  EXPECT_LT(link->next_deadline(), 0) << "nothing left to time";
}

TEST_F(ZrlLinkTest, LostClearToSendIsAskedForAgainWithBackoff) {
  const auto v = iota(10, 0);
  step();
  send_rts(v, 1);
  io.take_types();
  EXPECT_NEAR(link->next_deadline(), t + kZrlTimeoutS, 1e-9);
  step(0.05);
  EXPECT_TRUE(io.sent.empty()) << "no resend before 100 ms";
  step(0.06);
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlSendRequest}));
  step(0.15);
  EXPECT_TRUE(io.sent.empty()) << "the second wait is longer (back-off)";
  step(0.1);
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlSendRequest}));
  for (int i = 0; i < 20; ++i) step(2.0);  // the back-off is capped: it keeps asking
  EXPECT_EQ(io.take_types().size(), 20u);
  feed(header(0, kZrlRecvInt, kZrlClearToSend));
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlData}));
}

TEST_F(ZrlLinkTest, LostDataDatagramIsResent) {
  const auto v = iota(1000, 0);
  step();
  send_rts(v, 9);
  feed(header(0, kZrlRecvInt, kZrlClearToSend));
  io.sent.clear();  // all three DATA datagrams "lost"
  step(2.2);
  EXPECT_TRUE(io.sent.empty()) << "the node's own timeouts (up to 2.1 s) and CLEAR_TO_SEND come first";
  step(0.31);
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlData, 0, 0})) << "first retry: DATA alone";
  step(2.51);
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlSendRequest, kZrlData, 0, 0}))
      << "later retries put a request first, for a node that never saw one";
  // The node, still waiting for DATA, asks again with CLEAR_TO_SEND: DATA goes at once.
  feed(header(0, kZrlRecvInt, kZrlClearToSend));
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlData, 0, 0}));
  feed(header(0, kZrlRecvInt, kZrlAck));
  step();
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0].h.kind, kKindP2pFin);
  EXPECT_EQ(sink.frames[0].h.aux, 9u);
}

TEST_F(ZrlLinkTest, MessagesGoOneAtATimeInOrder) {
  const auto a = iota(3, 100), b = iota(4, 200);
  step();
  send_rts(a, 1);
  send_rts(b, 2);
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlSendRequest})) << "b waits for a's ACK";
  feed(header(0, kZrlRecvInt, kZrlClearToSend));
  EXPECT_EQ(sent_payload(), a);
  io.sent.clear();
  feed(header(0, kZrlRecvInt, kZrlAck));
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlSendRequest}));
  feed(header(0, kZrlRecvInt, kZrlClearToSend));
  EXPECT_EQ(sent_payload(), b);
  feed(header(0, kZrlRecvInt, kZrlAck));
  step();
  ASSERT_EQ(sink.frames.size(), 2u);
  EXPECT_EQ(sink.frames[0].h.aux, 1u);
  EXPECT_EQ(sink.frames[1].h.aux, 2u);
}

TEST_F(ZrlLinkTest, EagerFramesAreCopiedAndTheirCreditReturnedOnAck) {
  std::vector<int32_t> v = iota(8, 1);
  FrameHeader h;
  h.kind = kKindP2pEager;
  h.comm = 1;
  step();
  ASSERT_EQ(link->send(kNode, h, v.data(), 32), Errc::ok);
  v.assign(8, -1);  // the caller may reuse its buffer at once
  feed(header(0, kZrlRecvInt, kZrlClearToSend));
  io.sent.erase(io.sent.begin());  // the request
  EXPECT_EQ(sent_payload(), iota(8, 1));
  feed(header(0, kZrlRecvInt, kZrlAck));
  step();
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0].h.kind, kKindP2pCredit);
  EXPECT_EQ(sink.frames[0].h.aux, 32u + 128u);
}

TEST_F(ZrlLinkTest, UnsupportedSendsAreRefusedNamingTheReason) {
  FrameHeader h;
  h.kind = kKindP2pEager;
  char six[6] = {};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(link->send(kNode, h, six, 6), Errc::unsupported);
  h.dtype = static_cast<uint8_t>(Datatype::float64);
  EXPECT_EQ(link->send(kNode, h, six, 0), Errc::unsupported);
  h.dtype = 0;
  h.tag = -3;
  EXPECT_EQ(link->send(kNode, h, six, 4), Errc::unsupported);
  h.tag = 0;
  h.kind = 40;
  EXPECT_EQ(link->send(kNode, h, six, 4), Errc::unsupported);
  h.kind = kKindP2pCredit;
  EXPECT_EQ(link->send(kNode, h, nullptr, 0), Errc::ok) << "credit for a node is swallowed";
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("rank 1 (a ZRLMPI node): a message of 6 bytes is not a whole number of 4-byte words"),
            std::string::npos) << err;
  EXPECT_NE(err.find("datatype float64 is not a 4-byte type"), std::string::npos) << err;
  EXPECT_NE(err.find("tag -3"), std::string::npos) << err;
  EXPECT_NE(err.find("frame kind 40"), std::string::npos) << err;
  EXPECT_TRUE(io.sent.empty());
}

TEST_F(ZrlLinkTest, ReceiveAnswersDeliversThenAcknowledges) {
  const auto v = iota(1000, -500);
  step();
  feed(header(0, kZrlSendInt, kZrlSendRequest));
  ASSERT_EQ(io.sent.size(), 1u);
  ZrlHeader h;
  ASSERT_EQ(zrl_decode(io.sent[0].data(), 32, &h), "");
  EXPECT_EQ(h.type, kZrlClearToSend);
  EXPECT_EQ(h.call, kZrlRecvInt);
  EXPECT_EQ(h.dst, 1u);
  io.sent.clear();
  for (auto& d : data_datagrams(v, kZrlSendInt)) feed(d);
  EXPECT_TRUE(io.sent.empty()) << "ACK only once delivered";
  EXPECT_EQ(step(), 1);
  ASSERT_EQ(sink.frames.size(), 1u);
  const Frame& f = sink.frames[0];
  EXPECT_EQ(f.h.kind, kKindP2pEager);
  EXPECT_EQ(f.h.src, 1u);
  EXPECT_EQ(f.h.dst, 0u);
  EXPECT_EQ(f.h.comm, 1u);
  EXPECT_EQ(f.h.flags, kFlagP2pAnyTag);
  EXPECT_EQ(f.h.dtype, static_cast<uint8_t>(Datatype::int32));
  ASSERT_EQ(f.payload.size(), 4000u);
  EXPECT_EQ(std::memcmp(f.payload.data(), v.data(), 4000), 0);
  ASSERT_EQ(io.sent.size(), 1u);
  ASSERT_EQ(zrl_decode(io.sent[0].data(), 32, &h), "");
  EXPECT_EQ(h.type, kZrlAck);
  EXPECT_EQ(h.call, kZrlRecvInt);
}

TEST_F(ZrlLinkTest, FloatCallsDeliverFloatsAndAnswerWithTheFloatCall) {
  step();
  feed(header(0, kZrlSendFloat, kZrlSendRequest));
  EXPECT_EQ(io.sent.back()[16], std::byte{kZrlRecvFloat});
  std::vector<int32_t> bits(3);
  const float fl[3] = {1.5f, -2.25f, 1e30f};
  std::memcpy(bits.data(), fl, sizeof fl);
  for (auto& d : data_datagrams(bits, kZrlSendFloat)) feed(d);
  step();
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0].h.dtype, static_cast<uint8_t>(Datatype::float32));
  EXPECT_EQ(std::memcmp(sink.frames[0].payload.data(), fl, sizeof fl), 0);
  EXPECT_EQ(io.sent.back()[17], std::byte{kZrlAck});
  EXPECT_EQ(io.sent.back()[16], std::byte{kZrlRecvFloat});
}

TEST_F(ZrlLinkTest, RepeatedRequestAndLostClearToSendGetAnotherClearToSend) {
  step();
  feed(header(0, kZrlSendInt, kZrlSendRequest));
  feed(header(0, kZrlSendInt, kZrlSendRequest));  // the node timed out: our CTS was lost
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlClearToSend, kZrlClearToSend}));
  step(0.11);  // no DATA yet: ask again, as ZRLMPI's receiver does
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlClearToSend}));
  for (auto& d : data_datagrams(iota(2, 0), kZrlSendInt)) feed(d);
  step();
  EXPECT_EQ(sink.frames.size(), 1u) << "one message for two requests";
}

TEST_F(ZrlLinkTest, LostContinuationIsRecoveredByTheNodesResend) {
  const auto v = iota(2000, 0);  // 8000 bytes: 6 datagrams
  step();
  feed(header(0, kZrlSendInt, kZrlSendRequest));
  auto dg = data_datagrams(v, kZrlSendInt);
  ASSERT_EQ(dg.size(), 6u);
  for (size_t i = 0; i < dg.size(); ++i)
    if (i != 2) feed(dg[i]);
  EXPECT_EQ(step(), 0) << "incomplete: nothing delivered";
  for (auto& d : dg) feed(d);  // the node's ACK timer ran out: it resends everything
  EXPECT_EQ(step(), 1);
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(std::memcmp(sink.frames[0].payload.data(), v.data(), 8000), 0);
}

TEST_F(ZrlLinkTest, LostFinalAckIsAnsweredByReacknowledgingTheDuplicate) {
  const auto v = iota(500, 3);
  step();
  feed(header(0, kZrlSendInt, kZrlSendRequest));
  for (auto& d : data_datagrams(v, kZrlSendInt)) feed(d);
  step();
  ASSERT_EQ(sink.frames.size(), 1u);
  io.sent.clear();  // our ACK is lost: ZRLMPI's sender resends DATA (and would hang)
  for (int round = 0; round < 3; ++round) {
    ::testing::internal::CaptureStderr();
    for (auto& d : data_datagrams(v, kZrlSendInt)) feed(d);
    step(0.1);
    ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlAck})) << "round " << round;
  }
  EXPECT_EQ(sink.frames.size(), 1u) << "the duplicate is not delivered";
  EXPECT_LT(link->next_deadline(), 0);
  // A new message afterwards (request first) is delivered, even with equal content.
  feed(header(0, kZrlSendInt, kZrlSendRequest));
  for (auto& d : data_datagrams(v, kZrlSendInt)) feed(d);
  step();
  EXPECT_EQ(sink.frames.size(), 2u);
}

TEST_F(ZrlLinkTest, DataWithoutRequestButNewContentIsDelivered) {
  // The node's request was lost and it used a CLEAR_TO_SEND it had cached: new DATA.
  step();
  feed(header(0, kZrlSendInt, kZrlSendRequest));
  for (auto& d : data_datagrams(iota(4, 0), kZrlSendInt)) feed(d);
  step();
  for (auto& d : data_datagrams(iota(4, 10), kZrlSendInt)) feed(d);
  step();
  ASSERT_EQ(sink.frames.size(), 2u);
  EXPECT_EQ(reinterpret_cast<const int32_t*>(sink.frames[1].payload.data())[0], 10);
}

TEST_F(ZrlLinkTest, EarlyClearToSendLetsDataFollowTheRequestAtOnce) {
  step();
  feed(header(0, kZrlRecvInt, kZrlClearToSend));  // the node answered a stale request
  EXPECT_TRUE(io.sent.empty());
  const auto v = iota(5, 0);
  send_rts(v, 3);
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlSendRequest, kZrlData}));
  feed(header(0, kZrlRecvInt, kZrlAck));
  step();
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0].h.aux, 3u);
}

TEST_F(ZrlLinkTest, CorruptPacketsAreDroppedAndLoggedNamingSenderAndFault) {
  step();
  struct Case {
    std::vector<std::byte> d;
    const char* fault;
  };
  std::vector<Case> cases;
  auto sr = header(0, kZrlSendInt, kZrlSendRequest);
  auto b = sr;
  b[1] = std::byte{0x69};
  cases.push_back({b, "start marker byte 1 = 0x69 (must be 0x96)"});
  b = sr;
  b[20] = std::byte{1};
  cases.push_back({b, "reserved byte 20 = 0x01 (must be 0x00)"});
  b = sr;
  b[30] = std::byte{0};
  cases.push_back({b, "end marker byte 30 = 0x00 (must be 0x96)"});
  cases.push_back({header(0, kZrlSendInt, kZrlSendRequest, /*dst=*/3), "destination rank 3 is not this rank (0)"});
  cases.push_back({header(0, kZrlSendInt, kZrlSendRequest, kSelf, /*src=*/4),
                   "source rank 4 does not match the sender's address (rank 1)"});
  cases.push_back({header(0, kZrlSendInt, 7), "packet type 7 is unknown (must be 1..5)"});
  cases.push_back({header(0, kZrlRecvInt, kZrlSendRequest), "SEND_REQUEST with call MPI_RECV_INT (1)"});
  cases.push_back({std::vector<std::byte>(100, std::byte{0x41}), "start marker byte 0 = 0x41 (must be 0x96)"});
  for (auto& c : cases) {
    ::testing::internal::CaptureStderr();
    feed(c.d);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("rank 1"), std::string::npos) << err;
    EXPECT_NE(err.find(c.fault), std::string::npos) << "want: " << c.fault << "\ngot: " << err;
  }
  EXPECT_EQ(step(), 0);
  EXPECT_TRUE(io.sent.empty()) << "no answer to a corrupt packet";
  EXPECT_TRUE(sink.frames.empty());
  // ERROR packets are logged; the link goes on.
  ::testing::internal::CaptureStderr();
  feed(header(0, kZrlRecvInt, kZrlError));
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("rank 1 (ZRLMPI node) sent an ERROR packet"),
            std::string::npos);
  feed(sr);
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlClearToSend})) << "valid traffic still works";
}

TEST_F(ZrlLinkTest, OversizedDataIsRefusedWithAnErrorPacket) {
  step();
  feed(header(0, kZrlSendInt, kZrlSendRequest));
  io.sent.clear();
  ::testing::internal::CaptureStderr();
  feed(header(0xffffffffu, kZrlSendInt, kZrlData));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("4294967295 words from rank 1"), std::string::npos) << err;
  EXPECT_EQ(io.take_types(), (std::vector<int>{kZrlError}));
  EXPECT_EQ(step(), 0);
}

TEST_F(ZrlLinkTest, NodeSilentAfterTakingOurRequestIsReportedLost) {
  const auto v = iota(4, 0);
  step();
  send_rts(v, 5);
  feed(header(0, kZrlRecvInt, kZrlClearToSend));
  for (int i = 0; i < 10; ++i) step(2.0);
  EXPECT_TRUE(sink.lost.empty()) << "20 s of silence is not yet lost";
  for (int i = 0; i < 10; ++i) step(2.0);
  ASSERT_EQ(sink.lost.size(), 1u);
  EXPECT_NE(sink.lost[0].find("ZRLMPI node rank 1 sent nothing for 30 s"), std::string::npos) << sink.lost[0];
  EXPECT_EQ(send_rts(v, 6), Errc::lost_peer);
  EXPECT_LT(link->next_deadline(), 0);
}

TEST_F(ZrlLinkTest, WaitingForClearToSendNeverGivesUp) {
  // A ZRLMPI node answers only once its program calls MPI_Recv, maybe much later.
  const auto v = iota(4, 0);
  step();
  send_rts(v, 5);
  for (int i = 0; i < 100; ++i) step(2.0);
  EXPECT_TRUE(sink.lost.empty());
  feed(header(0, kZrlRecvInt, kZrlClearToSend));
  feed(header(0, kZrlRecvInt, kZrlAck));
  step();
  ASSERT_EQ(sink.frames.size(), 1u);
}

TEST_F(ZrlLinkTest, LingersAfterADeliverySoADuplicateCanBeAcknowledged) {
  EXPECT_FALSE(link->lingering(now_s()));
  step();
  feed(header(0, kZrlSendInt, kZrlSendRequest));
  for (auto& d : data_datagrams(iota(4, 0), kZrlSendInt)) feed(d);
  step();
  const double now = now_s();
  EXPECT_TRUE(link->lingering(now));
  EXPECT_FALSE(link->lingering(now + 3.5));
}
