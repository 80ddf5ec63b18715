// Byte layout of the two kinds of POSIX shared-memory segments the shm fabric uses.
// Both sides of a segment may be different processes (or threads of one process in
// the threads-as-ranks harness), so everything here is plain data plus std::atomic
// of lock-free integer types, which are address-free and valid across processes.
//
//  /il-<job>-ctl-<rank>   one per rank, created by that rank at fabric construction:
//                         its pid, a futex doorbell and the list of ranks that opened
//                         a ring towards it (O(N), N = job size).
//  /il-<job>-<src>-<dst>  one per ordered pair that actually talks, created by src on
//                         its first send to dst; unlinked by dst once it mapped it.
// A crashed job can leave both behind; the launcher removes /dev/shm/il-<job>-*.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "interlace/fabric/frame.hpp"

namespace interlace::fabric::shm {

inline constexpr size_t kLine = 64;
inline constexpr uint64_t kRingMagic = 0x474e4952'2d4c4931ull;  // "1IL-RING"
inline constexpr uint64_t kCtlMagic = 0x4c544320'2d4c4931ull;   // "1IL- CTL"

static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<uint32_t>::is_always_lock_free);

// First 8 bytes of the first slot of every ring entry. The producer stores it last
// (release); the consumer expects exactly stamp(position) there. A frame's payload
// runs on over the words of its later slots, so those words hold user bytes that
// may equal a later stamp. The consumer only ever reads the word where the next
// frame starts, so before publishing a frame the producer zeroes the word of the
// slot after it if payload bytes lie there (SendRing::push); every word the
// consumer polls is then 0, an earlier stamp or skip marker, or the right stamp.
inline constexpr uint64_t kSkipBit = 1ull << 63;  // "rest of this lap is unused"
inline constexpr uint64_t stamp(uint64_t position) noexcept { return position + 1; }

// One 64-byte slot. A frame uses ceil((8 + 48 + len) / 64) consecutive slots: the
// word, the header and the first 8 payload bytes share the first cache line.
struct alignas(kLine) Slot {
  std::atomic<uint64_t> word;
  std::byte bytes[kLine - 8];
};
static_assert(sizeof(Slot) == kLine);
inline constexpr size_t kFrameOverhead = 8 + sizeof(FrameHeader);  // 56
inline constexpr size_t slots_for(uint64_t len) noexcept {
  return static_cast<size_t>((kFrameOverhead + len + kLine - 1) / kLine);
}

// Ring segment: header line pair, consumer line pair, then the slots. Lines are
// kept 128 bytes apart because the adjacent-line prefetcher pulls pairs.
struct RingHeader {
  uint64_t magic;           // kRingMagic once initialised
  uint32_t nslots;          // power of two
  uint32_t src, dst;
  int32_t producer_pid;
  uint64_t producer_probe;  // address of `magic` in the producer's address space
  std::atomic<uint32_t> consumer_mapped;
};
struct alignas(128) RingConsumer {
  std::atomic<uint64_t> head;  // first position not yet consumed; written by consumer only
};
inline constexpr size_t kRingHeaderBytes = 256;
inline constexpr size_t kRingConsumerOffset = 128;
static_assert(sizeof(RingHeader) <= kRingConsumerOffset);

inline size_t ring_segment_bytes(uint32_t nslots) noexcept {
  return kRingHeaderBytes + size_t{nslots} * kLine;
}

// Control segment of one rank.
struct CtlHeader {
  std::atomic<uint64_t> magic;  // kCtlMagic, stored last (release) once all else is set
  uint32_t size;
  int32_t pid;
  uint64_t probe;               // address of `magic` in the owner's address space
  std::atomic<uint32_t> closed; // owner destroyed its fabric
};
struct alignas(128) CtlDoorbell {
  std::atomic<uint32_t> doorbell;  // futex word: bumped to wake the owner
  std::atomic<uint32_t> sleeping;  // owner is (about to be) blocked in futex_wait
  // ... and waits for memory that peers store to directly (PGAS): only then does a
  // direct store wake it (Fabric::notify), not while it sleeps waiting for frames.
  std::atomic<uint32_t> mem_waiting;
};
struct alignas(128) CtlAnnounce {
  std::atomic<uint32_t> count;  // next free entry; senders fetch_add
};
inline constexpr size_t kCtlDoorbellOffset = 128;
inline constexpr size_t kCtlAnnounceOffset = 256;
inline constexpr size_t kCtlListOffset = 384;  // uint32 entries: sender rank + 1, 0 = not yet
static_assert(sizeof(CtlHeader) <= kCtlDoorbellOffset);

inline size_t ctl_segment_bytes(uint32_t size) noexcept {
  return kCtlListOffset + size_t{size} * sizeof(uint32_t);
}

// Segment names. job ids are sanitised to [A-Za-z0-9._-] so any id makes a valid name.
std::string sanitize_job(const std::string& job_id);
std::string ctl_name(const std::string& job, int rank);
std::string ring_name(const std::string& job, int src, int dst);

}  // namespace interlace::fabric::shm
