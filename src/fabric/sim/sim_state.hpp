// The state every rank of a sim job shares: one shared-memory segment named by the
// job id (threads of one process map it once each, processes of `interlace run` each
// map it), guarded by one robust process-shared mutex. Fixed layout, no pointers.
#pragma once
#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "interlace/fabric/frame.hpp"

namespace interlace::fabric::sim {

inline constexpr uint64_t kSimMagic = 0x4d49532d4c49ull;  // "IL-SIM"

enum RankState : uint32_t {
  kAbsent = 0,   // not attached yet
  kReady = 1,    // inside a fabric call, wants the baton at `clock`
  kRunning = 2,  // holds the baton (inside a call or between calls)
  kBlocked = 3,  // inside wait(): wants the baton at `deadline` (lowered by arrivals)
  kAway = 4,     // held the baton outside the fabric too long (or its thread ended)
  kDone = 5,     // closed its fabric: out of the schedule
  kLost = 6,     // its process died
};

struct RankSlot {
  uint32_t state;
  std::atomic<uint32_t> futex;  // bumped when the rank is handed the baton
  int32_t pid, tid;
  uint64_t clock_ps;     // virtual time of the rank
  uint64_t deadline_ps;  // kBlocked: when it runs again
  uint64_t cks_free_ps;  // its sender (CKS) is busy injecting until then
  uint32_t woken;        // wake() was called
  uint32_t inside;       // a thread of the rank is inside a fabric call (never stalled)
  uint32_t pad;
  uint32_t timer;        // kBlocked: deadline_ps is still the timeout (no arrival, no wake)
  uint64_t real_deadline_ns;  // kBlocked: the same timeout on the real clock
};

struct Event {
  uint64_t t_ps;
  uint64_t seq;        // creation order: equal times stay deterministic
  uint32_t src, dst;   // the frame's pair
  uint32_t idx;        // descriptor slot in the pair
  int32_t node;        // where the train's head is; -1: deliver at dst
};

enum DescState : uint32_t { kInFlight = 1, kDelivered = 2 };

struct Desc {
  FrameHeader h;
  uint64_t off;          // payload offset in the pair's ring (monotonic byte count)
  uint64_t alloc;        // ring bytes taken (payload rounded up, plus wrap padding)
  uint64_t deliver_ps;
  uint64_t interval_ps;  // time between packets of the train so far (its bottleneck)
  uint32_t packets;
  uint32_t state;
  int32_t prev_link;     // link the train last crossed (for back-pressure), -1 none
  uint32_t head_ser_ps;  // serialisation of the train's first packet on a link
};

struct Pair {
  uint64_t dhead, dtail;  // descriptors: [dhead, dtail) live, oldest first
  uint64_t bhead, btail;  // ring bytes, monotonic
  uint64_t last_deliver_ps;
  uint64_t pad[3];
};

struct Header {
  uint64_t magic;
  uint32_t n, ndesc;
  uint64_t ring_bytes;
  uint32_t heap_cap, heap_size;
  pthread_mutex_t mu;
  std::atomic<uint32_t> init_done;
  int32_t holder;      // rank holding the baton, -1 none
  uint32_t attached;
  uint32_t started;    // every rank attached: the baton is handed out
  uint64_t seq;
  uint64_t holder_out_ns;  // real time the holder last left a fabric call
  uint64_t packets, events, handovers, stalls;
};

// Offsets of the parts of the segment for n ranks.
struct Layout {
  size_t ranks = 0, links = 0, heap = 0, pairs = 0, pair_bytes = 0, total = 0;
  uint32_t ndesc = 0, heap_cap = 0;
  Layout() = default;
  uint64_t ring_bytes = 0;
  Layout(int n, uint32_t ndesc, uint64_t ring_bytes);
};

}  // namespace interlace::fabric::sim
