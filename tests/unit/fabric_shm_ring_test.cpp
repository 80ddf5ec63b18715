// The shm frame ring on plain memory: one producer, one consumer, no segments.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "fabric/shm/shm_ring.hpp"

using namespace interlace;
using namespace interlace::fabric::shm;

namespace {

struct Ring {
  static constexpr uint32_t kSlots = 16;
  std::unique_ptr<std::byte, decltype(&std::free)> mem{nullptr, &std::free};
  SendRing tx;
  RecvRing rx;
  explicit Ring(uint32_t nslots = kSlots) {
    const size_t bytes = ring_segment_bytes(nslots);
    mem.reset(static_cast<std::byte*>(std::aligned_alloc(128, bytes)));
    std::memset(mem.get(), 0, bytes);
    tx.attach(mem.get(), nslots);
    rx.v.attach(mem.get());
    rx.v.nslots = nslots;
  }
};

fabric::FrameHeader header(uint32_t seq) {
  fabric::FrameHeader h;
  h.magic = fabric::kFrameMagic;
  h.seq = seq;
  return h;
}

// Payload bytes 8..15 of a two-slot frame land on the word of its second slot. Here
// they equal the stamp that position carries one lap later, when one-slot frames
// shift the frame starts onto those slots: the consumer must not take the stale
// payload for a published frame.
TEST(ShmRing, PayloadEqualToAFutureStampIsNotAFrame) {
  Ring r;
  constexpr uint32_t n = Ring::kSlots;
  ASSERT_EQ(slots_for(16), 2u);
  for (uint64_t pos = 0; pos < n; pos += 2) {
    uint64_t payload[2] = {0xabcdef, stamp(pos + 1 + n)};
    ASSERT_EQ(r.tx.push(header(static_cast<uint32_t>(pos)), payload, sizeof payload), Errc::ok);
    const Slot* s = r.rx.peek();
    ASSERT_NE(s, nullptr);
    r.rx.pop(slots_for(16));
  }
  // Lap two: one one-slot frame at position n; position n + 1 is not yet written.
  ASSERT_EQ(r.tx.push(header(99), nullptr, 0), Errc::ok);
  ASSERT_NE(r.rx.peek(), nullptr);
  r.rx.pop(1);
  EXPECT_EQ(r.rx.peek(), nullptr) << "a stale payload word was read as a frame stamp";
  // The real frame then appears there.
  ASSERT_EQ(r.tx.push(header(100), nullptr, 0), Errc::ok);
  const Slot* s = r.rx.peek();
  ASSERT_NE(s, nullptr);
  fabric::FrameHeader h;
  std::memcpy(&h, RecvRing::header_of(s), sizeof h);
  EXPECT_EQ(h.seq, 100u);
}

// Frames of mixed sizes through many laps arrive whole and in order; in the larger
// ring frames span several 64-slot words of the producer's payload bitmap.
void mixed_sizes(uint32_t nslots, size_t max_words) {
  Ring r(nslots);
  uint32_t sent = 0, got = 0;
  std::vector<uint64_t> buf(max_words);
  for (int round = 0; round < 4000; ++round) {
    const size_t words = static_cast<size_t>(round * 7919) % max_words;  // 0..max_words-1
    for (size_t i = 0; i < words; ++i) buf[i] = stamp(sent + i);  // stamp-like payloads
    if (r.tx.push(header(sent), buf.data(), words * 8) == Errc::ok) ++sent;
    while (const Slot* s = r.rx.peek()) {
      fabric::FrameHeader h;
      std::memcpy(&h, RecvRing::header_of(s), sizeof h);
      ASSERT_EQ(h.magic, fabric::kFrameMagic) << "frame " << got;
      ASSERT_EQ(h.seq, got);
      const auto* p = reinterpret_cast<const uint64_t*>(RecvRing::payload_of(s));
      for (size_t i = 0; i < h.len / 8; ++i) ASSERT_EQ(p[i], stamp(got + i));
      r.rx.pop(slots_for(h.len));
      ++got;
      if (round % 3 == 0) break;  // let the ring fill up sometimes
    }
  }
  EXPECT_GT(got, 1000u);
}

TEST(ShmRing, MixedSizesSurviveManyLaps) { mixed_sizes(Ring::kSlots, 19); }
TEST(ShmRing, LargeFramesAcrossBitmapWordsSurviveManyLaps) { mixed_sizes(1024, 8 * 500); }

}  // namespace
