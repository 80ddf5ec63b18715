#include "p2p/p2p_engine.hpp"

#include <algorithm>
#include <cstring>

#include "interlace/core/tsan.hpp"
#include "interlace/core/log.hpp"

namespace interlace::p2p {

using fabric::FrameHeader;

namespace {
// Chunk size for copying rendezvous: big enough to amortise a frame, small enough
// that a fabric's out buffer stays bounded.
constexpr size_t kChunkBytes = 1 << 20;
}  // namespace

P2pEngine::P2pEngine(engine::Context& ctx)
    : ctx_(ctx), eager_max_(std::min(ctx.config().eager_limit, ctx.fabric().max_payload())) {
  const size_t credit = ctx.config().eager_credit;
  credit_.assign(static_cast<size_t>(ctx.size()), static_cast<int64_t>(credit));
  owed_.assign(static_cast<size_t>(ctx.size()), 0);
  // A quarter: one small frame per C/4 bytes consumed keeps the steady state nearly
  // free, and a sender that waits for credit still sees at least 3/4 of it come back.
  return_at_ = std::max<uint64_t>(credit / 4, 1);
  ctx.set_handler(fabric::kKindP2pEager, &P2pEngine::on_eager, this);
  ctx.set_handler(fabric::kKindP2pRts, &P2pEngine::on_rts, this);
  ctx.set_handler(fabric::kKindP2pCts, &P2pEngine::on_cts, this);
  ctx.set_handler(fabric::kKindP2pData, &P2pEngine::on_data, this);
  ctx.set_handler(fabric::kKindP2pFin, &P2pEngine::on_fin, this);
  ctx.set_handler(fabric::kKindP2pCredit, &P2pEngine::on_credit, this);
  ctx.set_handler(fabric::kKindP2pCancel, &P2pEngine::on_cancel, this);
  ctx.set_handler(fabric::kKindP2pCancelAck, &P2pEngine::on_cancel_ack, this);
  ctx.add_peer_lost_listener(&P2pEngine::on_lost, this);
  ctx.add_progress_hook(&P2pEngine::push_chunks, this);
  ctx.add_comm_free_listener(&P2pEngine::on_comm_freed, this);
}

RequestImpl* P2pEngine::new_request(RequestImpl::Op op) {
  RequestImpl* r;
  if (!pool_.empty()) {
    r = pool_.back();
    pool_.pop_back();
  } else {
    r = new RequestImpl();
  }
  r->refs.store(1, std::memory_order_relaxed);
  r->eng = this;
  r->op = op;
  r->done = false;
  r->status = Status{};
  r->buf = nullptr;
  r->cap = r->expected = r->received = 0;
  r->sbuf = nullptr;
  r->bytes = r->sent = 0;
  r->cookie = r->peer_cookie = 0;
  r->cancel_asked = false;
  return r;
}

void P2pEngine::release(RequestImpl* r) {
  if (r->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  r->comm.reset();
  if (pool_.size() < 1024) pool_.push_back(r); else delete r;
}

CommQueues& P2pEngine::queues(uint64_t comm) {
  if (comm == last_comm_) return *last_queues_;
  CommQueues& q = queues_[comm];  // unordered_map keeps references stable
  last_comm_ = comm;
  last_queues_ = &q;
  return q;
}

uint64_t P2pEngine::register_cookie(RequestImpl* r) {
  uint64_t c = next_cookie_++;
  r->cookie = c;
  r->refs.fetch_add(1, std::memory_order_relaxed);
  rendezvous_.emplace(c, r);
  return c;
}

RequestImpl* P2pEngine::find_cookie(uint64_t cookie) {
  auto it = rendezvous_.find(cookie);
  return it == rendezvous_.end() ? nullptr : it->second;
}

RequestImpl* P2pEngine::take_cookie(uint64_t cookie) {
  auto it = rendezvous_.find(cookie);
  if (it == rendezvous_.end()) return nullptr;
  RequestImpl* r = it->second;
  rendezvous_.erase(it);
  return r;  // the caller owns the table's reference now
}

void P2pEngine::complete(RequestImpl* r, Errc err) {
  r->status.error = err;
  r->done = true;
}

void P2pEngine::fill_source(RequestImpl* r, int src_world, int tag, size_t bytes) {
  r->status.source = r->comm ? r->comm->rank_of_world[src_world] : src_world;
  r->status.tag = tag;
  r->status.bytes = std::min(bytes, r->cap);
  r->expected = bytes;
}

void P2pEngine::start_send(RequestImpl* r, bool sync) {
  // Without credit the message waits at the sender (rendezvous) instead of in the
  // receiver's unexpected queue or our backlog: memory stays bounded.
  if (!sync && eager_ok(r->peer, r->bytes)) {
    const Errc rc = send_eager_now(r->comm_id, r->peer, r->tag, r->sbuf, r->bytes);
    if (rc != Errc::would_block) {
      complete(r, rc);
      return;
    }
  }
  FrameHeader h;
  h.comm = r->comm_id;
  h.tag = r->tag;
  RtsInfo info{reinterpret_cast<uint64_t>(r->sbuf), r->bytes, register_cookie(r)};
  IL_TSAN_RELEASE(r->sbuf);
  h.kind = fabric::kKindP2pRts;
  h.aux = r->bytes;
  Errc rc = ctx_.send_frame(r->peer, h, &info, sizeof info);
  if (rc != Errc::ok) {
    take_cookie(info.cookie);
    complete(r, rc);
    release(r);
  }
}

// A large message that the fabric cannot take at once would be copied whole into the
// context's backlog, and a window of them (OSU's osu_bw: 64 isends of 64 KiB into a
// 256 KiB shm ring that holds three) spent more time allocating and copying there than
// moving data: 0.5-2 GB/s against 6-10 for the MPIs. Such a message goes by rendezvous
// instead, streamed from the caller's buffer as the receiver frees the fabric. Only
// non-blocking sends do this: a blocking send keeps eager buffering, which programs
// that send to each other before receiving count on.
Errc P2pEngine::send_eager_now(uint64_t comm, int peer_world, int tag, const void* buf, size_t bytes) {
  if (bytes <= kBacklogEagerMax || peer_world == ctx_.rank())
    return send_eager(comm, peer_world, tag, buf, bytes);
  FrameHeader h;
  h.kind = fabric::kKindP2pEager;
  h.comm = comm;
  h.tag = tag;
  const Errc rc = ctx_.try_send_frame(peer_world, h, buf, bytes);
  if (rc == Errc::ok) credit_[peer_world] -= static_cast<int64_t>(charge(bytes));
  return rc;
}

void P2pEngine::deliver_eager(RequestImpl* r, int src, int tag, const std::byte* p, size_t len) {
  fill_source(r, src, tag, len);
  if (len) std::memcpy(r->buf, p, std::min(len, r->cap));
  complete(r, len > r->cap ? Errc::truncated : Errc::ok);
  return_credit(src, len);
}

// Called once per eager message this rank has matched (a receive now owns its bytes).
void P2pEngine::return_credit(int src, size_t len) {
  if (src == ctx_.rank()) return;  // self-sends are exempt from credit
  uint64_t& owed = owed_[static_cast<size_t>(src)];
  owed += charge(len);
  if (owed < return_at_) return;
  FrameHeader h;
  h.kind = fabric::kKindP2pCredit;
  h.aux = owed;
  owed = 0;
  ctx_.send_frame(src, h, nullptr, 0);  // a lost peer needs no credit: ignore errors
}

void P2pEngine::begin_rendezvous_recv(RequestImpl* r, int src, int tag, const RtsInfo& info) {
  fill_source(r, src, tag, info.bytes);
  r->peer = src;
  const size_t n = std::min<size_t>(info.bytes, r->cap);
  const Errc done_code = info.bytes > r->cap ? Errc::truncated : Errc::ok;
  FrameHeader h;
  h.comm = r->comm_id;
  h.tag = tag;
  if (ctx_.fabric().remote_read_available(src)) {
    IL_TSAN_ACQUIRE(reinterpret_cast<void*>(info.addr));
    Errc rc = ctx_.fabric().remote_read(src, info.addr, r->buf, n);
    IL_TSAN_RELEASE(reinterpret_cast<void*>(info.addr));
    if (rc == Errc::ok) {
      h.kind = fabric::kKindP2pFin;
      h.aux = info.cookie;
      ctx_.send_frame(src, h, nullptr, 0);
      complete(r, done_code);
      return;
    }
    IL_LOG(debug, "single-copy read from rank " << src << " failed (" << errc_name(rc)
                                                << "); copying through frames");
  }
  CtsInfo cts{info.cookie, 0};
  if (info.bytes > 0) cts.receiver_cookie = register_cookie(r);
  h.kind = fabric::kKindP2pCts;
  Errc rc = ctx_.send_frame(src, h, &cts, sizeof cts);
  if (rc != Errc::ok) {
    if (cts.receiver_cookie) release(take_cookie(cts.receiver_cookie));
    complete(r, rc);
  } else if (info.bytes == 0) {
    complete(r, Errc::ok);
  }
}

void P2pEngine::start_recv(RequestImpl* r) {
  CommQueues& q = queues(r->comm_id);
  for (auto it = q.unexpected.begin(); it != q.unexpected.end(); ++it) {
    const int tag = effective_tag(r, it->tag, it->any_tag);
    if (!matches(r, it->src, tag)) continue;
    Unexpected u = std::move(*it);
    q.unexpected.erase(it);
    if (u.kind == fabric::kKindP2pEager) {
      unexpected_bytes_ -= charge(u.data.size());
      deliver_eager(r, u.src, tag, u.data.data(), u.data.size());
    } else {
      begin_rendezvous_recv(r, u.src, u.tag, u.rts);
    }
    return;
  }
  // Nothing arrived: a dead sender will never send (any member, for ANY_SOURCE).
  if (r->peer != ANY_SOURCE) {
    if (ctx_.peer_lost(r->peer)) return complete(r, Errc::lost_peer);
  } else if (all_others_lost(*r->comm)) {
    return complete(r, Errc::lost_peer);
  }
  if (r->peer != ANY_SOURCE) ctx_.watch_peer(r->peer);
  r->refs.fetch_add(1, std::memory_order_relaxed);
  q.posted.push_back(r);
}

bool P2pEngine::probe(const CommState& c, int source_world, int tag, Status* st, bool raise_if_lost) {
  CommQueues& q = queues(c.id);
  for (const Unexpected& u : q.unexpected) {
    const bool tag_ok = u.any_tag ? tag >= 0 || tag == ANY_TAG
                                  : u.tag == tag || (tag == ANY_TAG && u.tag >= 0);
    if ((source_world != ANY_SOURCE && u.src != source_world) || !tag_ok) continue;
    if (st) {
      st->source = c.rank_of_world[u.src];
      st->tag = u.any_tag ? (tag == ANY_TAG ? 0 : tag) : u.tag;
      st->bytes = u.kind == fabric::kKindP2pEager ? u.data.size() : u.rts.bytes;
      st->error = Errc::ok;
    }
    return true;
  }
  if (raise_if_lost && source_world != ANY_SOURCE && ctx_.peer_lost(source_world))
    throw_error(Errc::lost_peer, "probe: source world rank " + std::to_string(source_world) +
                                     " is lost and sent no matching message");
  if (raise_if_lost && source_world == ANY_SOURCE && all_others_lost(c))
    throw_error(Errc::lost_peer, "probe: every other member of the communicator is lost");
  return false;
}

bool P2pEngine::cancel(RequestImpl* r) {
  if (r->op != RequestImpl::Op::recv || r->done) return false;
  CommQueues& q = queues(r->comm_id);
  auto it = std::find(q.posted.begin(), q.posted.end(), r);
  if (it == q.posted.end()) return false;  // matched: a rendezvous is in flight
  q.posted.erase(it);
  r->status.cancelled = true;
  complete(r, Errc::ok);
  release(r);
  return true;
}

bool P2pEngine::cancel_send(RequestImpl* r) {
  if (r->op != RequestImpl::Op::send || r->done) return false;
  if (r->cancel_asked) return true;
  // Only a send still waiting for its receiver (its cookie in the table, no CTS yet)
  // can go back; a foreign (ZRLMPI) peer has no cancel on its wire.
  if (r->cookie == 0 || find_cookie(r->cookie) != r || ctx_.foreign(r->peer)) return false;
  FrameHeader h;
  h.kind = fabric::kKindP2pCancel;
  h.comm = r->comm_id;
  h.aux = r->cookie;
  if (ctx_.send_frame(r->peer, h, nullptr, 0) != Errc::ok) return false;  // lost: fails anyway
  r->cancel_asked = true;
  return true;
}

bool P2pEngine::claim(const CommState& c, int source_world, int tag, Unexpected* out, Status* st) {
  CommQueues& q = queues(c.id);
  for (auto it = q.unexpected.begin(); it != q.unexpected.end(); ++it) {
    const Unexpected& u = *it;
    const bool tag_ok = u.any_tag ? tag >= 0 || tag == ANY_TAG
                                  : u.tag == tag || (tag == ANY_TAG && u.tag >= 0);
    if ((source_world != ANY_SOURCE && u.src != source_world) || !tag_ok) continue;
    *out = std::move(*it);
    q.unexpected.erase(it);
    if (out->any_tag) out->tag = tag == ANY_TAG ? 0 : tag;
    out->any_tag = false;
    const bool eager = out->kind == fabric::kKindP2pEager;
    if (st) {
      st->source = c.rank_of_world[out->src];
      st->tag = out->tag;
      st->bytes = eager ? out->data.size() : out->rts.bytes;
      st->error = Errc::ok;
      st->cancelled = false;
    }
    if (eager) {
      unexpected_bytes_ -= charge(out->data.size());
      return_credit(out->src, out->data.size());
    }
    return true;
  }
  if (source_world != ANY_SOURCE && ctx_.peer_lost(source_world))
    throw_error(Errc::lost_peer, "mprobe: source world rank " + std::to_string(source_world) +
                                     " is lost and sent no matching message");
  if (source_world == ANY_SOURCE && all_others_lost(c))
    throw_error(Errc::lost_peer, "mprobe: every other member of the communicator is lost");
  return false;
}

void P2pEngine::start_recv_claimed(RequestImpl* r, Unexpected& u) {
  r->peer = u.src;
  r->tag = u.tag;
  if (u.kind == fabric::kKindP2pEager) {
    // Credit went back at the claim: copy without deliver_eager's return.
    fill_source(r, u.src, u.tag, u.data.size());
    if (!u.data.empty()) std::memcpy(r->buf, u.data.data(), std::min(u.data.size(), r->cap));
    complete(r, u.data.size() > r->cap ? Errc::truncated : Errc::ok);
    return;
  }
  if (ctx_.peer_lost(u.src)) return complete(r, Errc::lost_peer);
  begin_rendezvous_recv(r, u.src, u.tag, u.rts);
}

Errc P2pEngine::wait(RequestImpl* r, Deadline d) {
  if (r->done) return Errc::ok;
  return ctx_.wait_until([r] { return r->done; }, d);
}

// ---- frame handlers -------------------------------------------------------

void P2pEngine::on_eager(void* self, const FrameHeader& h, const std::byte* p) {
  auto* e = static_cast<P2pEngine*>(self);
  CommQueues& q = e->queues(h.comm);
  const int src = static_cast<int>(h.src);
  const bool any_tag = (h.flags & fabric::kFlagP2pAnyTag) != 0;
  for (auto it = q.posted.begin(); it != q.posted.end(); ++it) {
    RequestImpl* r = *it;
    const int tag = effective_tag(r, h.tag, any_tag);
    if (!matches(r, src, tag)) continue;
    if (it == q.posted.begin()) q.posted.pop_front(); else q.posted.erase(it);
    e->deliver_eager(r, src, tag, p, h.len);
    e->release(r);
    return;
  }
  Unexpected u;
  u.src = src;
  u.tag = h.tag;
  u.any_tag = any_tag;
  u.kind = fabric::kKindP2pEager;
  u.data.assign(p, p + h.len);
  q.unexpected.push_back(std::move(u));
  e->unexpected_bytes_ += charge(h.len);
}

void P2pEngine::on_rts(void* self, const FrameHeader& h, const std::byte* p) {
  auto* e = static_cast<P2pEngine*>(self);
  if (h.len != sizeof(RtsInfo)) {
    IL_LOG(error, "dropping rendezvous frame from rank " << h.src << " with payload " << h.len
                                                         << " bytes (expected " << sizeof(RtsInfo) << ")");
    return;
  }
  RtsInfo info;
  std::memcpy(&info, p, sizeof info);
  CommQueues& q = e->queues(h.comm);
  const int src = static_cast<int>(h.src);
  for (auto it = q.posted.begin(); it != q.posted.end(); ++it) {
    RequestImpl* r = *it;
    if (!matches(r, src, h.tag)) continue;
    q.posted.erase(it);
    e->begin_rendezvous_recv(r, src, h.tag, info);
    e->release(r);
    return;
  }
  Unexpected u;
  u.src = src;
  u.tag = h.tag;
  u.kind = fabric::kKindP2pRts;
  u.rts = info;
  q.unexpected.push_back(std::move(u));
}

void P2pEngine::on_cts(void* self, const FrameHeader& h, const std::byte* p) {
  auto* e = static_cast<P2pEngine*>(self);
  CtsInfo cts;
  RequestImpl* r = nullptr;
  if (h.len == sizeof cts) {
    std::memcpy(&cts, p, sizeof cts);
    r = e->take_cookie(cts.sender_cookie);
  }
  if (!r || static_cast<int>(h.src) != r->peer) {
    IL_LOG(error, "dropping clear-to-send from rank " << h.src << ": no matching send");
    if (r) e->rendezvous_.emplace(cts.sender_cookie, r);
    return;
  }
  r->peer_cookie = cts.receiver_cookie;
  r->sent = 0;
  e->streaming_.push_back(r);  // the table's reference moves to the stream list
  e->ctx_.add_busy(1);
  push_chunks(e);
}

bool P2pEngine::push_chunks(void* self) {
  auto* e = static_cast<P2pEngine*>(self);
  // Queues of freed communicators go here, outside any walk over a queue (the last
  // reference may drop while one is walked); one hook call per round serves both.
  if (!e->dead_comms_.empty()) e->purge_dead_comms();
  if (e->streaming_.empty()) return false;
  bool moved = false;
  for (size_t i = 0; i < e->streaming_.size();) {
    RequestImpl* r = e->streaming_[i];
    // At most a quarter of what one frame to the peer may hold, so several chunks are
    // in flight and the receiver copies one while the sender writes the next (per
    // peer: with two tiers tcp frames to other hosts may be far larger than shm's).
    const size_t chunk_max =
        std::min(kChunkBytes, std::max<size_t>(e->ctx_.fabric().max_payload_to(r->peer) / 4, 4096));
    Errc rc = Errc::ok;
    while (r->sent < r->bytes) {
      FrameHeader h;
      h.kind = fabric::kKindP2pData;
      h.comm = r->comm_id;
      h.aux = r->peer_cookie;
      const size_t n = std::min(chunk_max, r->bytes - r->sent);
      rc = e->ctx_.try_send_frame(r->peer, h, static_cast<const std::byte*>(r->sbuf) + r->sent, n);
      if (rc != Errc::ok) break;
      r->sent += n;
      moved = true;
    }
    if (rc == Errc::would_block) { ++i; continue; }
    e->complete(r, rc);
    e->streaming_.erase(e->streaming_.begin() + static_cast<long>(i));
    e->ctx_.add_busy(-1);
    e->release(r);
    moved = true;
  }
  return moved;
}

void P2pEngine::on_data(void* self, const FrameHeader& h, const std::byte* p) {
  auto* e = static_cast<P2pEngine*>(self);
  RequestImpl* r = e->find_cookie(h.aux);
  if (!r || r->op != RequestImpl::Op::recv || static_cast<int>(h.src) != r->peer ||
      r->received + h.len > r->expected) {
    IL_LOG(error, "dropping data frame from rank " << h.src << " for unknown or full receive "
                                                   << h.aux);
    return;
  }
  if (r->received < r->cap)
    std::memcpy(static_cast<std::byte*>(r->buf) + r->received, p,
                std::min<size_t>(h.len, r->cap - r->received));
  r->received += h.len;
  if (r->received == r->expected) {
    e->take_cookie(h.aux);
    e->complete(r, r->expected > r->cap ? Errc::truncated : Errc::ok);
    e->release(r);
  }
}

void P2pEngine::on_fin(void* self, const FrameHeader& h, const std::byte*) {
  auto* e = static_cast<P2pEngine*>(self);
  RequestImpl* r = e->find_cookie(h.aux);
  if (!r || r->op != RequestImpl::Op::send || static_cast<int>(h.src) != r->peer) {
    IL_LOG(error, "dropping rendezvous completion from rank " << h.src << " for unknown send " << h.aux);
    return;
  }
  IL_TSAN_ACQUIRE(r->sbuf);
  e->take_cookie(h.aux);
  e->complete(r, Errc::ok);
  e->release(r);
}

void P2pEngine::on_credit(void* self, const FrameHeader& h, const std::byte*) {
  auto* e = static_cast<P2pEngine*>(self);
  if (h.len != 0) {
    IL_LOG(error, "dropping credit frame from rank " << h.src << " returning " << h.aux << " bytes");
    return;
  }
  e->credit_[h.src] += static_cast<int64_t>(h.aux);
}

// Receiver side of a send cancel: drops the request-to-send if no receive took it yet.
// Frames between two ranks arrive in order, so the RTS came before this, and a CTS or
// FIN for a match already went out before the reply.
void P2pEngine::on_cancel(void* self, const FrameHeader& h, const std::byte*) {
  auto* e = static_cast<P2pEngine*>(self);
  const int src = static_cast<int>(h.src);
  uint8_t dropped = 0;
  if (auto qi = e->queues_.find(h.comm); qi != e->queues_.end()) {
    auto& un = qi->second.unexpected;
    for (auto it = un.begin(); it != un.end(); ++it) {
      if (it->kind != fabric::kKindP2pRts || it->src != src || it->rts.cookie != h.aux) continue;
      un.erase(it);
      dropped = 1;
      break;
    }
  }
  FrameHeader a;
  a.kind = fabric::kKindP2pCancelAck;
  a.comm = h.comm;
  a.aux = h.aux;
  a.flags = dropped;
  e->ctx_.send_frame(src, a, nullptr, 0);  // a lost sender needs no answer
}

void P2pEngine::on_cancel_ack(void* self, const FrameHeader& h, const std::byte*) {
  auto* e = static_cast<P2pEngine*>(self);
  RequestImpl* r = e->find_cookie(h.aux);
  // Not found: the receiver matched first and the send already completed (FIN or CTS
  // came before this answer).
  if (!r || r->op != RequestImpl::Op::send || static_cast<int>(h.src) != r->peer) return;
  if (!(h.flags & 1)) return;  // matched: the transfer completes the send
  e->take_cookie(h.aux);
  r->status.cancelled = true;
  e->complete(r, Errc::ok);
  e->release(r);
}

void P2pEngine::on_lost(void* self, int peer) {
  static_cast<P2pEngine*>(self)->fail_peer_requests(peer);
}

// An ANY_SOURCE receive keeps waiting while some other member could still send;
// a peer that exits after finishing its part is not an error for it.
bool P2pEngine::all_others_lost(const CommState& c) const {
  if (c.size() <= 1) return false;
  for (int w : c.world_of)
    if (w != ctx_.rank() && !ctx_.peer_lost(w)) return false;
  return true;
}

void P2pEngine::fail_peer_requests(int peer) {
  for (auto& [id, q] : queues_) {
    for (auto it = q.posted.begin(); it != q.posted.end();) {
      RequestImpl* r = *it;
      bool involved = r->peer == peer ||
                      (r->peer == ANY_SOURCE && r->comm && r->comm->rank_of_world[peer] >= 0 &&
                       all_others_lost(*r->comm));
      if (!involved) { ++it; continue; }
      it = q.posted.erase(it);
      complete(r, Errc::lost_peer);
      release(r);
    }
  }
  for (auto it = rendezvous_.begin(); it != rendezvous_.end();) {
    RequestImpl* r = it->second;
    if (r->peer != peer) { ++it; continue; }
    it = rendezvous_.erase(it);
    complete(r, Errc::lost_peer);
    release(r);
  }
  for (size_t i = 0; i < streaming_.size();) {
    RequestImpl* r = streaming_[i];
    if (r->peer != peer) { ++i; continue; }
    streaming_.erase(streaming_.begin() + static_cast<long>(i));
    ctx_.add_busy(-1);
    complete(r, Errc::lost_peer);
    release(r);
  }
}

void P2pEngine::abandon_pending() {
  for (auto& [id, q] : queues_) {
    for (RequestImpl* r : q.posted) {
      complete(r, Errc::finalized);
      release(r);
    }
    q.posted.clear();
    q.unexpected.clear();
  }
  unexpected_bytes_ = 0;
  for (auto& [cookie, r] : rendezvous_) {
    if (!r->done) complete(r, Errc::finalized);
    release(r);
  }
  rendezvous_.clear();
  for (RequestImpl* r : streaming_) {
    complete(r, Errc::finalized);
    ctx_.add_busy(-1);
    release(r);
  }
  streaming_.clear();
}

P2pEngine::~P2pEngine() {
  for (RequestImpl* r : pool_) delete r;
}

void P2pEngine::purge_dead_comms() {
  for (uint64_t comm : dead_comms_) {
    if (comm == last_comm_) {
      last_comm_ = ~0ull;
      last_queues_ = nullptr;
    }
    queues_.erase(comm);
  }
  dead_comms_.clear();
}


}  // namespace interlace::p2p
