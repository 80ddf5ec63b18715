// Internal: the matching engine behind Communicator. One per Runtime (per rank).
// Receives are matched against arrived messages in arrival order per communicator;
// arrived messages against posted receives in posting order (MPI non-overtaking).
#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "interlace/core/datatype.hpp"
#include "interlace/engine/context.hpp"
#include "interlace/groups/comm_state.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/p2p/transport.hpp"

namespace interlace::p2p {

// Communicator and rank state live in the groups layer, shared by every model.
using groups::CommState;
using groups::RuntimeState;

class P2pEngine;


struct RtsInfo {        // payload of a rendezvous request-to-send
  uint64_t addr;        // sender buffer address (for single-copy reads)
  uint64_t bytes;       // message length
  uint64_t cookie;      // sender request id
};
struct CtsInfo {        // payload of a clear-to-send (copying fabrics)
  uint64_t sender_cookie;
  uint64_t receiver_cookie;
};

struct RequestImpl : engine::Completion {  // done: set when the operation finished
  std::atomic<int> refs{1};
  P2pEngine* eng = nullptr;
  enum class Op : uint8_t { send, recv } op = Op::send;
  Status status;
  std::shared_ptr<CommState> comm;  // keeps rank translation alive
  uint64_t comm_id = 0;
  int peer = ANY_SOURCE;            // world rank: destination, or source filter
  int tag = ANY_TAG;
  // receive side
  void* buf = nullptr;
  size_t cap = 0;
  size_t expected = 0;              // rendezvous message length
  size_t received = 0;              // bytes copied so far (copying rendezvous)
  // send side
  const void* sbuf = nullptr;
  size_t bytes = 0;
  size_t sent = 0;                  // bytes handed to the fabric (copying rendezvous)
  uint64_t cookie = 0;              // our id in the rendezvous tables
  uint64_t peer_cookie = 0;         // the receiver's id (copying rendezvous)
  bool cancel_asked = false;        // a P2pCancel went to the receiver (send cancel)
};

struct Unexpected {
  int src = 0;                      // world rank
  int tag = 0;
  uint8_t kind = 0;                 // kKindP2pEager or kKindP2pRts
  bool any_tag = false;             // from a peer without tags (fabric::kFlagP2pAnyTag)
  RtsInfo rts{};
  std::vector<std::byte> data;      // eager payload
};

struct CommQueues {
  std::deque<RequestImpl*> posted;
  std::deque<Unexpected> unexpected;
};

// This rank's matching engine (created by Runtime, kept in the Context's model state).
inline P2pEngine& engine_of(const RuntimeState& rt) {
  return *static_cast<P2pEngine*>(rt.ctx->model_state(engine::Context::Model::p2p).get());
}
inline P2pEngine& engine_of(const CommState& c) { return engine_of(*c.rt); }

class P2pEngine {
 public:
  explicit P2pEngine(engine::Context& ctx);
  ~P2pEngine();
  P2pEngine(const P2pEngine&) = delete;
  P2pEngine& operator=(const P2pEngine&) = delete;
  engine::Context& ctx() { return ctx_; }

  RequestImpl* new_request(RequestImpl::Op op);
  void release(RequestImpl* r);

  // Start operations. peer/source are world ranks (source may be ANY_SOURCE).
  void start_send(RequestImpl* r, bool sync);
  size_t eager_max() const { return eager_max_; }
  // Eager credit (docs/p2p.md): a sender may have at most INTERLACE_EAGER_CREDIT bytes,
  // each message charged len + kMessageCharge, of eager messages to one peer that the
  // peer has not matched yet. Receivers return credit in batches of a quarter of it.
  static constexpr size_t kMessageCharge = 128;  // about an unexpected entry's overhead
  static size_t charge(size_t bytes) { return bytes + kMessageCharge; }
  // May `bytes` go to `peer_world` as one eager frame now? Otherwise send by rendezvous.
  // Sends to self are exempt: one thread both sends and receives, so nothing outpaces
  // anything, and a rendezvous send to self before the receive could never complete.
  bool eager_ok(int peer_world, size_t bytes) const {
    // A ZRLMPI node (docs/zrlmpi.md) gets every message by rendezvous, which the
    // udp fabric's link maps onto its handshake: the send completes on its ACK.
    return bytes <= eager_max_ && !ctx_.foreign(peer_world) &&
           (credit_[peer_world] >= static_cast<int64_t>(charge(bytes)) || peer_world == ctx_.rank());
  }
  // One eager frame, no request (blocking sends of small messages). Callers check
  // eager_ok first; the credit is charged regardless so the books stay balanced.
  Errc send_eager(uint64_t comm, int peer_world, int tag, const void* buf, size_t bytes) {
    credit_[peer_world] -= static_cast<int64_t>(charge(bytes));
    fabric::FrameHeader h;
    h.kind = fabric::kKindP2pEager;
    h.comm = comm;
    h.tag = tag;
    return ctx_.send_frame(peer_world, h, buf, bytes);
  }
  // Non-blocking sends: send_eager when the message is small or the fabric takes it at
  // once; else would_block with nothing sent or charged (the caller goes by rendezvous).
  // Larger messages than this never wait in the context's backlog as whole copies.
  static constexpr size_t kBacklogEagerMax = 16 * 1024;
  Errc send_eager_now(uint64_t comm, int peer_world, int tag, const void* buf, size_t bytes);
  // For tests and diagnostics: charged bytes of eager messages waiting in the
  // unexpected queues of this rank, and the credit left towards a peer.
  size_t unexpected_bytes() const { return unexpected_bytes_; }
  int64_t credit_left(int peer_world) const { return credit_[peer_world]; }
  void start_recv(RequestImpl* r);
  // Finds an arrived message matching (comm, source, tag); fills status.
  // raise_if_lost: a lost source with no matching message raises lost_peer (a blocking
  // probe would wait forever); models looking for stray messages pass false.
  bool probe(const CommState& c, int source_world, int tag, Status* st, bool raise_if_lost = true);
  bool cancel(RequestImpl* r);
  // Send cancel: an unmatched rendezvous send asks its receiver to drop the
  // request-to-send (P2pCancel); the reply (P2pCancelAck) completes it as cancelled, or
  // the send completes normally if the receiver matched it first. Eager sends are done
  // already. True when a cancel went out (or one already had).
  bool cancel_send(RequestImpl* r);
  // Matched probe (MPI_Mprobe): takes the first arrived message matching (comm, source,
  // tag) out of matching, so that no other receive or probe can see it, into *out (its
  // tag made concrete); fills *st. The message counts as matched: eager credit returns.
  bool claim(const CommState& c, int source_world, int tag, Unexpected* out, Status* st);
  // Receives a claimed message into r (buf/cap/comm set): an eager one at once, a
  // rendezvous one by starting the transfer.
  void start_recv_claimed(RequestImpl* r, Unexpected& u);
  // At finalize: operations still pending fail with Errc::finalized and the engine
  // drops its references (a pending receive would otherwise keep its communicator,
  // and through it the whole runtime, alive).
  void abandon_pending();
  Errc wait(RequestImpl* r, Deadline d = {});
  // A dead communicator's queues: posted receives hold the communicator, so only
  // messages nobody can receive any more remain; dropped with the entry at the next
  // progress round (the last reference may go while a queue is being walked).
  void drop_comm(uint64_t comm) { dead_comms_.push_back(comm); }
  size_t comm_entries() const noexcept { return queues_.size(); }  // for leak tests

 private:
  static void on_eager(void* self, const fabric::FrameHeader& h, const std::byte* p);
  static void on_rts(void* self, const fabric::FrameHeader& h, const std::byte* p);
  static void on_cts(void* self, const fabric::FrameHeader& h, const std::byte* p);
  static void on_data(void* self, const fabric::FrameHeader& h, const std::byte* p);
  static void on_fin(void* self, const fabric::FrameHeader& h, const std::byte* p);
  static void on_credit(void* self, const fabric::FrameHeader& h, const std::byte* p);
  static void on_cancel(void* self, const fabric::FrameHeader& h, const std::byte* p);
  static void on_cancel_ack(void* self, const fabric::FrameHeader& h, const std::byte* p);
  static void on_lost(void* self, int peer);
  static bool push_chunks(void* self);
  void purge_dead_comms();
  static void on_comm_freed(void* self, uint64_t comm) { static_cast<P2pEngine*>(self)->drop_comm(comm); }

  CommQueues& queues(uint64_t comm);
  static bool matches(const RequestImpl* r, int src, int tag) {
    return (r->peer == ANY_SOURCE || r->peer == src) && (r->tag == tag || (r->tag == ANY_TAG && tag >= 0));
  }
  // A message from a peer whose wire has no tags (ZRLMPI) takes the tag of the receive
  // it meets: any user tag (0 for ANY_TAG), never internal traffic's negative ones.
  static int effective_tag(const RequestImpl* r, int tag, bool any_tag) {
    if (!any_tag) return tag;
    return r->tag == ANY_TAG ? 0 : r->tag >= 0 ? r->tag : INT32_MIN;
  }
  void deliver_eager(RequestImpl* r, int src, int tag, const std::byte* p, size_t len);
  void return_credit(int src, size_t len);
  void begin_rendezvous_recv(RequestImpl* r, int src, int tag, const RtsInfo& info);
  void complete(RequestImpl* r, Errc err);
  void fill_source(RequestImpl* r, int src_world, int tag, size_t bytes);
  uint64_t register_cookie(RequestImpl* r);
  RequestImpl* take_cookie(uint64_t cookie);
  RequestImpl* find_cookie(uint64_t cookie);
  void fail_peer_requests(int peer);
  bool all_others_lost(const CommState& c) const;

  engine::Context& ctx_;
  size_t eager_max_ = 0;
  std::unordered_map<uint64_t, CommQueues> queues_;
  uint64_t last_comm_ = ~0ull;
  CommQueues* last_queues_ = nullptr;
  std::unordered_map<uint64_t, RequestImpl*> rendezvous_;  // cookie -> request in flight
  uint64_t next_cookie_ = 1;
  std::vector<RequestImpl*> streaming_;   // copying rendezvous sends being chunked
  std::vector<RequestImpl*> pool_;
  std::vector<uint64_t> dead_comms_;
  // Eager credit, per world rank: what we may still send (can dip below zero only
  // through send_eager callers that skipped eager_ok), and what we owe back.
  std::vector<int64_t> credit_;
  std::vector<uint64_t> owed_;
  uint64_t return_at_ = 0;          // owed bytes that trigger a credit frame
  size_t unexpected_bytes_ = 0;
};

}  // namespace interlace::p2p
