// ZRLMPI's 32-byte header: the byte layout of docs/zrlmpi.md and the faults that
// make a receiver drop a packet.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "fabric/udp/zrl_header.hpp"

using namespace interlace::fabric::udp;

namespace {

std::vector<std::byte> bytes(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

// DATA from rank 2 to rank 5, 0x01020304 words, MPI_SEND_FLOAT: the vector in docs/zrlmpi.md.
const std::vector<std::byte> kVector = bytes({
    0x96, 0x96, 0x96, 0x96, 0x05, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04, 0x03, 0x02, 0x01,
    0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x96, 0x96, 0x96, 0x96});

}  // namespace

TEST(ZrlHeader, EncodesTheDocumentedVector) {
  ZrlHeader h{5, 2, 0x01020304, kZrlSendFloat, kZrlData};
  std::byte out[kZrlHeaderBytes];
  zrl_encode(h, out);
  EXPECT_EQ(std::memcmp(out, kVector.data(), kZrlHeaderBytes), 0);
}

TEST(ZrlHeader, DecodesTheDocumentedVector) {
  ZrlHeader h;
  ASSERT_EQ(zrl_decode(kVector.data(), kVector.size(), &h), "");
  EXPECT_EQ(h.dst, 5u);
  EXPECT_EQ(h.src, 2u);
  EXPECT_EQ(h.words, 0x01020304u);
  EXPECT_EQ(h.call, kZrlSendFloat);
  EXPECT_EQ(h.type, kZrlData);
  EXPECT_EQ(zrl_check(h, 5, 2), "");
  EXPECT_TRUE(is_zrl_header(kVector.data(), kVector.size()));
}

TEST(ZrlHeader, RoundTripsEveryTypeAndCall) {
  for (uint8_t type = kZrlSendRequest; type <= kZrlError; ++type)
    for (uint8_t call = kZrlSendInt; call <= kZrlBarrier; ++call) {
      ZrlHeader h{7, 63, type == kZrlData ? 354u : 0u, call, type}, back;
      std::byte out[kZrlHeaderBytes];
      zrl_encode(h, out);
      ASSERT_EQ(zrl_decode(out, sizeof out, &back), "");
      EXPECT_EQ(back.dst, 7u);
      EXPECT_EQ(back.src, 63u);
      EXPECT_EQ(back.words, h.words);
      EXPECT_EQ(back.call, call);
      EXPECT_EQ(back.type, type);
    }
}

TEST(ZrlHeader, FaultsNameTheByteAndValue) {
  ZrlHeader h;
  auto with = [](size_t at, int v) {
    std::vector<std::byte> b = kVector;
    b[at] = static_cast<std::byte>(v);
    return b;
  };
  auto b = with(2, 0x95);
  EXPECT_EQ(zrl_decode(b.data(), b.size(), &h), "start marker byte 2 = 0x95 (must be 0x96)");
  b = with(18, 0x07);  // ZRLMPI's optional tag byte: its decoder rejects it, so do we
  EXPECT_EQ(zrl_decode(b.data(), b.size(), &h), "reserved byte 18 = 0x07 (must be 0x00)");
  b = with(27, 0x01);
  EXPECT_EQ(zrl_decode(b.data(), b.size(), &h), "reserved byte 27 = 0x01 (must be 0x00)");
  b = with(31, 0x00);
  EXPECT_EQ(zrl_decode(b.data(), b.size(), &h), "end marker byte 31 = 0x00 (must be 0x96)");
  EXPECT_EQ(zrl_decode(kVector.data(), 31, &h), "datagram of 31 bytes is shorter than the 32-byte header");
  EXPECT_FALSE(is_zrl_header(kVector.data(), 3));
  EXPECT_FALSE(is_zrl_header(with(0, 0).data(), 32));
}

TEST(ZrlHeader, FieldChecksNameTheField) {
  ZrlHeader h{5, 2, 0, kZrlSendInt, kZrlSendRequest};
  EXPECT_EQ(zrl_check(h, 5, 2), "");
  EXPECT_EQ(zrl_check(h, 4, 2), "destination rank 5 is not this rank (4)");
  EXPECT_EQ(zrl_check(h, 5, 3), "source rank 2 does not match the sender's address (rank 3)");
  h.type = 9;
  EXPECT_EQ(zrl_check(h, 5, 2), "packet type 9 is unknown (must be 1..5)");
  h.type = 0;
  EXPECT_EQ(zrl_check(h, 5, 2), "packet type 0 is unknown (must be 1..5)");
  h = {5, 2, 0, 17, kZrlAck};
  EXPECT_EQ(zrl_check(h, 5, 2), "call 17 is unknown (must be 0..4)");
  h = {5, 2, 4, kZrlSendInt, kZrlSendRequest};
  EXPECT_EQ(zrl_check(h, 5, 2), "SEND_REQUEST with size 4 words (handshake packets carry none)");
}
