// The two ends of one single-producer/single-consumer frame ring. Inline because
// they are the whole hot path: a send is two memcpy-sized stores and one release
// store; a poll is one acquire load of a line that also holds the header.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>

#include "fabric/shm/shm_layout.hpp"
#include "fabric/shm/shm_segment.hpp"
#include "interlace/core/error.hpp"

namespace interlace::fabric::shm {

struct RingView {
  RingHeader* hdr = nullptr;
  RingConsumer* cons = nullptr;
  Slot* slots = nullptr;
  uint32_t nslots = 0;

  void attach(std::byte* base) noexcept {
    hdr = reinterpret_cast<RingHeader*>(base);
    cons = reinterpret_cast<RingConsumer*>(base + kRingConsumerOffset);
    slots = reinterpret_cast<Slot*>(base + kRingHeaderBytes);
  }
};

// Producer end; lives in the sender's fabric. tail and cached_head are private to
// the producer, so the consumer's line is read only when the ring looks full.
struct SendRing {
  RingView v;
  Mapping map;
  uint64_t tail = 0;
  uint64_t cached_head = 0;
  // One bit per slot: its word holds payload bytes (see stamp() in shm_layout.hpp).
  std::unique_ptr<uint64_t[]> payload_word;

  bool open() const noexcept { return v.slots != nullptr; }
  void attach(std::byte* base, uint32_t nslots) {
    v.attach(base);
    v.nslots = nslots;
    payload_word = std::make_unique<uint64_t[]>((nslots + 63) / 64);
  }

  // Errc::ok or Errc::would_block; never a partial frame. len <= nslots/2 slots is
  // the caller's check (max_payload), which guarantees an empty ring always fits.
  Errc push(const FrameHeader& h, const void* payload, size_t len) noexcept {
    const uint64_t n = slots_for(len);
    const uint64_t idx = tail & (v.nslots - 1);
    const uint64_t to_end = v.nslots - idx;
    // A frame never wraps: if it does not fit before the end, the rest of the lap is
    // skipped, so the payload handed to the receiver is always contiguous.
    const uint64_t need = n <= to_end ? n : to_end + n;
    // One slot more than the frame: the slot after it must be ours to clear.
    if (tail + need + 1 - cached_head > v.nslots) {
      cached_head = v.cons->head.load(std::memory_order_acquire);
      if (tail + need + 1 - cached_head > v.nslots) return Errc::would_block;
    }
    Slot* s = &v.slots[idx];
    if (n > to_end) {
      s->word.store(stamp(tail) | kSkipBit, std::memory_order_release);
      tail += to_end;
      s = &v.slots[0];
    }
    // Header and payload are one contiguous run that starts after the word and
    // may continue into the following slots.
    std::byte* run = reinterpret_cast<std::byte*>(s) + 8;
    std::memcpy(run, &h, sizeof(FrameHeader));
    std::memcpy(run + offsetof(FrameHeader, len), &len, sizeof(uint64_t));
    if (len) std::memcpy(run + sizeof(FrameHeader), payload, len);
    const uint64_t first = tail & (v.nslots - 1);
    mark(first, false);
    mark_payload(first + 1, first + n);  // frames never wrap: first + n <= nslots
    // The consumer polls the next frame's word as soon as it has read this one: if
    // our payload left bytes there last lap, they must not pass for its stamp.
    const uint64_t next = (tail + n) & (v.nslots - 1);
    if (marked(next)) {
      v.slots[next].word.store(0, std::memory_order_relaxed);
      mark(next, false);
    }
    s->word.store(stamp(tail), std::memory_order_release);
    tail += n;
    return Errc::ok;
  }

 private:
  bool marked(uint64_t i) const noexcept { return payload_word[i >> 6] >> (i & 63) & 1; }
  void mark(uint64_t i, bool on) noexcept {
    const uint64_t bit = uint64_t{1} << (i & 63);
    if (on) payload_word[i >> 6] |= bit; else payload_word[i >> 6] &= ~bit;
  }
  // Marks slots [lo, hi) a word of bits at a time: a 64 KiB frame covers 1024 slots.
  void mark_payload(uint64_t lo, uint64_t hi) noexcept {
    while (lo < hi) {
      const uint64_t w = lo >> 6, bit = lo & 63;
      const uint64_t take = std::min<uint64_t>(64 - bit, hi - lo);
      const uint64_t ones = take == 64 ? ~uint64_t{0} : ((uint64_t{1} << take) - 1);
      payload_word[w] |= ones << bit;
      lo += take;
    }
  }
};

// Consumer end; lives in the receiver's fabric.
struct RecvRing {
  RingView v;
  Mapping map;
  uint64_t head = 0;

  bool open() const noexcept { return v.slots != nullptr; }

  // The first slot of the next frame, or nullptr when the ring is empty. Skip
  // markers are consumed here.
  const Slot* peek() noexcept {
    for (;;) {
      const uint64_t idx = head & (v.nslots - 1);
      const Slot* s = &v.slots[idx];
      const uint64_t w = s->word.load(std::memory_order_acquire);
      if (w == stamp(head)) return s;
      if (w != (stamp(head) | kSkipBit)) return nullptr;
      head += v.nslots - idx;
      v.cons->head.store(head, std::memory_order_release);
    }
  }
  static const std::byte* header_of(const Slot* s) noexcept {
    return reinterpret_cast<const std::byte*>(s) + 8;
  }
  static const std::byte* payload_of(const Slot* s) noexcept {
    return reinterpret_cast<const std::byte*>(s) + kFrameOverhead;
  }
  // Slots from the peeked slot to the end of the ring (bounds a corrupt length).
  uint64_t slots_to_end() const noexcept { return v.nslots - (head & (v.nslots - 1)); }
  // Releases the peeked frame's slots to the producer, after the sink is done with it.
  void pop(uint64_t n) noexcept {
    head += n;
    v.cons->head.store(head, std::memory_order_release);
  }
};

}  // namespace interlace::fabric::shm
