// Internal: per-rank state behind the streaming channels. Owned by the engine Context
// (Context::model_state), so it lives as long as the rank. Channel states and packet
// buffers are pooled: opening and closing channels allocates nothing in steady state.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "interlace/core/datatype.hpp"
#include "interlace/engine/context.hpp"
#include "interlace/stream/channel.hpp"

namespace interlace::stream::detail {

// Frame kinds (docs/wire.md, "Stream frames").
inline constexpr uint8_t kKindStreamData = 16;    // tag = port, seq = channel seq, aux = count
inline constexpr uint8_t kKindStreamCredit = 17;  // payload = uint64 credits (elements)
inline constexpr uint8_t kDataHello = 1;  // header only: a credit-mode sender opened
inline constexpr uint8_t kDataEager = 2;  // sender is eager (ignores credits)
inline constexpr uint8_t kCreditInitial = 1;

// Element pushes fill packets of this size: large enough that the per-frame cost
// vanishes against the per-element cost, small enough to stay in L1/L2.
inline constexpr size_t kElemPacketBytes = 32 * 1024;
// push_n sends straight from the caller's memory in frames of up to this size.
inline constexpr size_t kBulkFrameBytes = 1 << 20;
// A pop_n waiting for at least this much lets arriving frames land in its buffer.
inline constexpr size_t kDirectMinBytes = 4096;

struct Packet {
  Packet* next = nullptr;
  uint32_t seq = 0;
  uint8_t cls = 0;    // pool size class: capacity 64 << cls
  uint8_t flags = 0;  // data-frame flags
  uint8_t dtype = 0;  // sender's datatype and count, for the mismatch check
  uint64_t count = 0;
  size_t len = 0;     // payload bytes
  std::byte* data() noexcept { return reinterpret_cast<std::byte*>(this + 1); }
};

struct PacketList {
  Packet* head = nullptr;
  Packet* tail = nullptr;
  bool empty() const noexcept { return head == nullptr; }
  void push(Packet* p) noexcept {
    p->next = nullptr;
    if (tail) tail->next = p; else head = p;
    tail = p;
  }
  Packet* pop() noexcept {
    Packet* p = head;
    if (p) { head = p->next; if (!head) tail = nullptr; }
    return p;
  }
};

struct PortKey {
  uint64_t comm;
  int32_t peer;  // world rank
  int32_t port;
  bool operator==(const PortKey&) const = default;
};
struct PortKeyHash {
  size_t operator()(const PortKey& k) const noexcept {
    uint64_t x = k.comm * 0x9e3779b97f4a7c15ull ^
                 (uint64_t(uint32_t(k.peer)) << 32 | uint32_t(k.port));
    x ^= x >> 29; x *= 0xbf58476d1ce4e5b9ull; x ^= x >> 32;
    return static_cast<size_t>(x);
  }
};

class StreamEngine;

struct Endpoint {          // what both channel ends know about themselves
  StreamEngine* eng = nullptr;
  uint64_t comm = 0;
  int peer = 0;            // world rank
  int peer_rank = 0;       // communicator rank (for messages)
  int port = 0;
  uint32_t seq = 0;
  Datatype dt = Datatype::bytes;
  uint32_t es = 1;
  size_t count = 0;
  size_t degree = 1;
  bool registered = false; // listed in its port's open list
  size_t active_idx = ~size_t(0);  // index in the engine's active list
  Errc err = Errc::ok;     // a mismatch seen in a frame from the peer
  std::string msg;
};

struct SendPort;
struct RecvPort;

struct SendState : Endpoint {
  SendChannel* owner = nullptr;  // the channel object (moves update it)
  SendPort* sport = nullptr;
  bool eager = false;
  size_t pkt_elems = 1;    // window size for element pushes
  size_t sent = 0;         // elements handed to the engine
  uint64_t credits = 0;    // elements we may still send (credit mode)
  std::unique_ptr<std::byte[]> buf;
  size_t cap = 0;
};

struct RecvState : Endpoint {
  RecvPort* rport = nullptr;
  PacketList queue;        // arrived, not yet read
  Packet* cur = nullptr;   // the packet the channel reads from
  size_t consumed = 0;     // elements in released packets
  bool granted = false;    // we sent an initial grant: return credits as we pop
  bool sender_eager = false;
  uint64_t unreturned = 0;
  uint64_t threshold = 1;  // credit batch
  std::byte* direct = nullptr;  // a waiting pop_n's buffer: frames land here
  size_t direct_left = 0;       // bytes
};

struct EarlyCredit { uint32_t seq; uint8_t flags, dtype; uint64_t count, credits; };

struct SendPort {
  uint32_t next_seq = 0;
  std::vector<SendState*> open;
  std::vector<EarlyCredit> early;  // grants that came before the sender opened
};
struct RecvPort {
  uint32_t next_seq = 0;
  std::vector<RecvState*> open;
  PacketList early;                // data (eager) that came before the receiver opened
};

// Sequence numbers wrap: a seq is "older" than next when it lies behind it.
inline bool seq_before(uint32_t a, uint32_t b) noexcept { return int32_t(a - b) < 0; }

class StreamEngine {
 public:
  explicit StreamEngine(engine::Context& ctx);
  ~StreamEngine();
  StreamEngine(const StreamEngine&) = delete;
  StreamEngine& operator=(const StreamEngine&) = delete;
  static StreamEngine& of(engine::Context& ctx);

  engine::Context& ctx() noexcept { return ctx_; }
  size_t elem_packet_bytes() const noexcept { return elem_packet_; }
  size_t bulk_frame_bytes() const noexcept { return bulk_frame_; }

  SendState* new_send();
  void free_send(SendState* s) noexcept;
  RecvState* new_recv();
  void free_recv(RecvState* r) noexcept;
  Packet* get_packet(size_t len);
  void put_packet(Packet* p) noexcept;

  SendPort& send_port(uint64_t comm, int peer, int port);
  RecvPort& recv_port(uint64_t comm, int peer, int port);

  // send_frame, or a direct handler call for frames to this rank.
  Errc send(int peer, fabric::FrameHeader& h, const void* payload, size_t len);
  void send_credit(RecvState& r, uint64_t credits, uint8_t flags);
  // Applies an arrival (data or hello) to an open receive channel. Takes p (may be null).
  void deliver(RecvState& r, uint8_t flags, uint8_t dtype, uint64_t count, Packet* p);
  void apply_credit(SendState& s, const EarlyCredit& c);
  void grant(RecvState& r);
  void return_credits(RecvState& r, bool all);
  // Before a rank blocks: send every partly filled packet and all unreturned credits.
  void flush_all();

 private:
  static void on_data(void* self, const fabric::FrameHeader& h, const std::byte* p);
  static void on_credit(void* self, const fabric::FrameHeader& h, const std::byte* p);

  engine::Context& ctx_;
  size_t elem_packet_ = kElemPacketBytes;
  size_t bulk_frame_ = kBulkFrameBytes;
  std::unordered_map<PortKey, SendPort, PortKeyHash> sports_;
  std::unordered_map<PortKey, RecvPort, PortKeyHash> rports_;
  PortKey last_skey_{~0ull, -1, -1}, last_rkey_{~0ull, -1, -1};
  SendPort* last_sport_ = nullptr;
  RecvPort* last_rport_ = nullptr;
  std::vector<std::unique_ptr<SendState>> all_send_;
  std::vector<std::unique_ptr<RecvState>> all_recv_;
  std::vector<SendState*> active_send_;
  std::vector<RecvState*> active_recv_;
  std::vector<SendState*> free_send_;
  std::vector<RecvState*> free_recv_;
  static constexpr int kClasses = 40;
  std::vector<Packet*> free_pkts_[kClasses];
};

// "stream port 3 from rank 0: sender has 100 x int32, receiver expects 100 x float32"
std::string mismatch_message(bool at_sender, int port, int peer_rank, uint8_t s_dtype,
                             uint64_t s_count, uint8_t r_dtype, uint64_t r_count);

}  // namespace interlace::stream::detail
