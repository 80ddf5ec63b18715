// Per-rank state of the PGAS model (lives in Context::model_state(Model::pgas)).
#pragma once
#include <cstddef>
#include <cstdint>
#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "interlace/engine/context.hpp"
#include "interlace/groups/comm_state.hpp"
#include "interlace/pgas/am.hpp"
#include "interlace/pgas/pgas.hpp"
#include "pgas/heap_alloc.hpp"

namespace interlace::pgas {

// Where a symmetric address lives: the heap, the program's static data, or (replies
// only) a buffer of the requester named by its pending-operation cookie.
enum Region : uint8_t { kRegionHeap = 0, kRegionStatic = 1, kRegionLocal = 2 };

// Wire: kind 48 requests, 49 replies, 50 global exit. tag = handler index,
// flags = category, seq = number of 32-bit arguments (they open the payload),
// aux = long destination (region << 56 | offset), comm = cookie of the requester's
// pending operation (0 for user messages).
inline constexpr uint8_t kKindRequest = 48;
inline constexpr uint8_t kKindReply = 49;
inline constexpr uint8_t kKindExit = 50;
enum Category : uint8_t { kShort = 0, kMedium = 1, kLong = 2 };

// interlace's own handlers (FSHMEM's mapping: put = long request, get = short
// request answered by long replies, atomics = short request and short reply).
enum InternalHandler : unsigned {
  kHPut = 1,         // long request; args: domain, ack
  kHAck = 2,         // short reply; args: domain, failed, completes
  kHGet = 3,         // short request; args: region, off lo/hi, len lo/hi
  kHGetData = 4,     // long reply into the requester's buffer; args: last
  kHAmo = 5,         // short request; args: op, type, region, off lo/hi, v lo/hi, c lo/hi, domain
  kHAmoDone = 6,     // short reply; args: old lo/hi, domain, failed
  kHPutSignal = 7,   // long request; args: domain, sig region, sig off lo/hi, sig lo/hi, op
};

inline uint64_t pack_dest(uint8_t region, uint64_t off) { return uint64_t{region} << 56 | off; }

struct DomainState {
  uint32_t id = 0;
  uint64_t outstanding = 0;        // replies (acks, get data, atomic results) awaited
  std::vector<uint32_t> per_pe;    // the same per target, to fail them if it is lost
  bool mixed = false;              // an active message went to a PE also stored to directly
  std::string error;               // a PE was lost with operations outstanding, or one failed
  Errc error_code = Errc::ok;      // lost_peer or invalid_argument
};

struct PendingOp {      // a get or atomic awaiting its reply (gone once it came)
  void* dest = nullptr; // get: where the data goes; atomic: where the old value goes
  size_t len = 0;
  DomainState* dom = nullptr;
  int pe = -1;
};

struct HandlerEntry {
  AmHandler fn = nullptr;
  void* user = nullptr;
  std::string name;
};

struct PgasState {
  engine::Context* ctx = nullptr;   // owns this state (through the Pgas object)
  int rank = 0, size = 1;
  Pgas* api = nullptr;

  // heap
  std::byte* heap = nullptr;
  size_t heap_bytes = 0;
  bool heap_private = false;        // mmap'ed here (no fabric shares memory)
  HeapAllocator alloc;
  std::vector<std::byte*> peer_heap;  // mapped heaps; nullptr: not (yet) known
  std::vector<int8_t> peer_heap_state; // 0 unknown, 1 mapped, -1 active messages
  // Peers stored to directly since their last wake-up check (see flush_notify).
  std::unique_ptr<std::atomic<uint8_t>[]> dirty;
  std::atomic<bool> any_dirty{false};
  uint32_t direct_ops = 0;  // since the last progress round (maybe_poll)

  // static data of the program (data + bss of the executable)
  uintptr_t static_lo = 0, static_hi = 0;
  struct PeerInfo { bool known = false; long pid = 0; uint64_t static_lo = 0; size_t heap = 0; };
  std::vector<PeerInfo> peers;
  std::vector<int8_t> peer_cma;       // 0 unknown, 1 works, -1 active messages

  HandlerEntry handlers[kLastHandler + 1];
  size_t max_medium = 0, max_long = 0;

  Domain default_domain;
  uint32_t next_domain = 1;
  std::unordered_map<uint32_t, DomainState*> domains;
  uint64_t next_cookie = 1;
  std::unordered_map<uint64_t, PendingOp> pending;

  // Messages to self: delivered from the progress hook, like a peer's.
  struct Loop { fabric::FrameHeader h; std::vector<std::byte> payload; };
  std::deque<Loop> loopback;

  ~PgasState();
};

// pgas_attach.cpp
size_t parse_heap_size(const char* text);  // SHMEM_SYMMETRIC_SIZE syntax
PgasState& state_of(Pgas& p);
const PgasState::PeerInfo& peer_info(PgasState& s, int pe);
std::byte* mapped_heap(PgasState& s, int pe);  // nullptr: use active messages
void check_pe(const PgasState& s, int pe, const char* what);

// Translates a symmetric address of this PE; raises invalid_argument naming it when
// [addr, addr+len) is neither in the heap nor in the static data.
struct Sym { uint8_t region; uint64_t off; };
Sym translate(const PgasState& s, const void* addr, size_t len, const char* what);
// This PE's memory for a (region, offset, len), bounds-checked; nullptr if outside.
std::byte* local_address(PgasState& s, uint8_t region, uint64_t off, size_t len);

// am.cpp
void register_internal_handlers(PgasState& s);
void on_pgas_frame(void* self, const fabric::FrameHeader& h, const std::byte* payload);
bool pgas_progress_hook(void* self);
void on_pgas_peer_lost(void* self, int peer);
// Sends one active message (blocking for room unless inside a handler).
void send_am(PgasState& s, int pe, uint8_t kind, unsigned handler, Category cat,
             const AmArg* args, unsigned nargs, const void* data, size_t len, uint64_t dest,
             uint64_t cookie);
bool& in_handler_flag() noexcept;
void forbid_in_handler(const char* what);

// pgas_amo.cpp: applies op to local memory; returns the old value's bits.
uint64_t apply_amo(AmoOp op, AmoType type, void* addr, uint64_t operand, uint64_t compare);
void apply_signal(uint64_t* addr, uint64_t value, SignalOp op);

// After direct stores: wakes the peers stored to that sleep (Fabric::notify), after a
// sequentially consistent fence. Deferred from the store itself (a put pays no fence
// and no check) to the next point where this PE enters the library to wait, quiet,
// poll or progress; a target sleeping meanwhile rechecks at its peer-check period.
inline void mark_stored(PgasState& s, int pe) {
  if (pe == s.rank) return;
  if (!s.dirty[pe].load(std::memory_order_relaxed)) {
    s.dirty[pe].store(1, std::memory_order_relaxed);
    s.any_dirty.store(true, std::memory_order_relaxed);
  }
}
void flush_notify(PgasState& s);

// Operations that complete without the engine (direct stores, local atomics) still
// progress it now and then: a PE that polls a lock or a flag with such calls must go
// on serving the active messages its peers wait for (atomics on its static data).
inline constexpr uint32_t kPollEvery = 16;
void maybe_poll(PgasState& s);

// pgas_domain.cpp
DomainState& dom(PgasState& s, Domain& d);
void op_issued(PgasState& s, DomainState& d, int pe);
void op_completed(PgasState& s, uint32_t domain, int pe);
void wait_quiet(PgasState& s, DomainState& d);

}  // namespace interlace::pgas
