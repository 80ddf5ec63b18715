#include "stream/stream_engine.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

#include "interlace/core/log.hpp"

namespace interlace::stream::detail {

std::string mismatch_message(bool at_sender, int port, int peer_rank, uint8_t s_dtype,
                             uint64_t s_count, uint8_t r_dtype, uint64_t r_count) {
  auto name = [](uint8_t d) {
    return datatype_valid(d) ? std::string(datatype_name(static_cast<Datatype>(d)))
                             : "datatype code " + std::to_string(d);
  };
  return "stream port " + std::to_string(port) + (at_sender ? " to rank " : " from rank ") +
         std::to_string(peer_rank) + ": sender has " + std::to_string(s_count) + " x " +
         name(s_dtype) + ", receiver expects " + std::to_string(r_count) + " x " + name(r_dtype);
}

StreamEngine::StreamEngine(engine::Context& ctx) : ctx_(ctx) {
  const size_t maxp = ctx.fabric().max_payload();
  elem_packet_ = std::min(kElemPacketBytes, maxp);
  // Half the largest frame: on shm that is a quarter of the ring, so the receiver
  // drains one frame while the sender writes the next (measured 2-3x over full frames).
  bulk_frame_ = std::min(kBulkFrameBytes, std::max<size_t>(maxp / 2, 64));
  ctx.set_handler(kKindStreamData, &StreamEngine::on_data, this);
  ctx.set_handler(kKindStreamCredit, &StreamEngine::on_credit, this);
}

StreamEngine::~StreamEngine() {
  for (auto& list : free_pkts_)
    for (Packet* p : list) ::operator delete(p);
  for (auto& [k, rp] : rports_)
    while (Packet* p = rp.early.pop()) ::operator delete(p);
}

StreamEngine& StreamEngine::of(engine::Context& ctx) {
  std::shared_ptr<void>& slot = ctx.model_state(engine::Context::Model::stream);
  if (!slot) slot = std::make_shared<StreamEngine>(ctx);
  return *static_cast<StreamEngine*>(slot.get());
}

namespace {
template <class T>
void list_add(std::vector<T*>& v, T* x) {
  x->active_idx = v.size();
  v.push_back(x);
}
template <class T>
void list_remove(std::vector<T*>& v, T* x) {
  const size_t i = x->active_idx;
  v[i] = v.back();
  v[i]->active_idx = i;
  v.pop_back();
  x->active_idx = ~size_t(0);
}
}  // namespace

SendState* StreamEngine::new_send() {
  SendState* s;
  if (free_send_.empty()) {
    all_send_.push_back(std::make_unique<SendState>());
    s = all_send_.back().get();
  } else {
    s = free_send_.back();
    free_send_.pop_back();
  }
  list_add(active_send_, s);
  return s;
}

void StreamEngine::free_send(SendState* s) noexcept {
  if (s->registered) {
    auto& v = s->sport->open;
    v.erase(std::find(v.begin(), v.end(), s));
    s->registered = false;
  }
  s->err = Errc::ok;
  s->msg.clear();
  s->owner = nullptr;
  list_remove(active_send_, s);
  free_send_.push_back(s);
}

RecvState* StreamEngine::new_recv() {
  RecvState* r;
  if (free_recv_.empty()) {
    all_recv_.push_back(std::make_unique<RecvState>());
    r = all_recv_.back().get();
  } else {
    r = free_recv_.back();
    free_recv_.pop_back();
  }
  list_add(active_recv_, r);
  return r;
}

void StreamEngine::free_recv(RecvState* r) noexcept {
  if (r->registered) {
    auto& v = r->rport->open;
    v.erase(std::find(v.begin(), v.end(), r));
    r->registered = false;
  }
  if (r->cur) put_packet(r->cur);
  r->cur = nullptr;
  while (Packet* p = r->queue.pop()) put_packet(p);
  r->err = Errc::ok;
  r->msg.clear();
  list_remove(active_recv_, r);
  free_recv_.push_back(r);
}

Packet* StreamEngine::get_packet(size_t len) {
  const size_t need = std::max<size_t>(len, 64);
  const int cls = std::bit_width(need - 1) - 6;  // smallest 64 << cls >= need
  Packet* p;
  if (!free_pkts_[cls].empty()) {
    p = free_pkts_[cls].back();
    free_pkts_[cls].pop_back();
  } else {
    p = static_cast<Packet*>(::operator new(sizeof(Packet) + (size_t{64} << cls)));
    new (p) Packet();
  }
  p->cls = static_cast<uint8_t>(cls);
  p->len = len;
  p->next = nullptr;
  return p;
}

void StreamEngine::put_packet(Packet* p) noexcept { free_pkts_[p->cls].push_back(p); }

SendPort& StreamEngine::send_port(uint64_t comm, int peer, int port) {
  const PortKey k{comm, peer, port};
  if (last_sport_ && k == last_skey_) return *last_sport_;
  last_skey_ = k;
  last_sport_ = &sports_[k];
  return *last_sport_;
}

RecvPort& StreamEngine::recv_port(uint64_t comm, int peer, int port) {
  const PortKey k{comm, peer, port};
  if (last_rport_ && k == last_rkey_) return *last_rport_;
  last_rkey_ = k;
  last_rport_ = &rports_[k];
  return *last_rport_;
}

Errc StreamEngine::send(int peer, fabric::FrameHeader& h, const void* payload, size_t len) {
  if (peer != ctx_.rank()) return ctx_.send_frame(peer, h, payload, len);
  // Self channel: hand the frame to our own handler; it copies what it keeps.
  h.src = h.dst = static_cast<uint32_t>(peer);
  h.len = len;
  if (h.kind == kKindStreamData) on_data(this, h, static_cast<const std::byte*>(payload));
  else on_credit(this, h, static_cast<const std::byte*>(payload));
  return Errc::ok;
}

void StreamEngine::send_credit(RecvState& r, uint64_t credits, uint8_t flags) {
  fabric::FrameHeader h;
  h.kind = kKindStreamCredit;
  h.flags = flags;
  h.dtype = static_cast<uint8_t>(r.dt);
  h.comm = r.comm;
  h.tag = r.port;
  h.seq = r.seq;
  h.aux = r.count;
  Errc rc = send(r.peer, h, &credits, sizeof credits);
  // A lost sender needs no credits; the receiver notices the loss when it waits.
  if (rc != Errc::ok && rc != Errc::lost_peer)
    IL_LOG(debug, "stream credit to rank " << r.peer << " not sent: " << errc_name(rc));
}

void StreamEngine::grant(RecvState& r) {
  if (r.granted || r.count == 0) return;
  r.granted = true;
  const uint64_t g = std::min<uint64_t>(r.degree, r.count);
  r.threshold = std::max<uint64_t>(1, g / 4);
  send_credit(r, g, kCreditInitial);
}

void StreamEngine::return_credits(RecvState& r, bool all) {
  if (!r.granted || r.sender_eager || r.unreturned == 0) return;
  if (!all && r.unreturned < r.threshold) return;
  send_credit(r, r.unreturned, 0);
  r.unreturned = 0;
}

void StreamEngine::flush_all() {
  // Index loops: a flush may close a channel but never frees a state.
  for (size_t i = 0; i < active_send_.size(); ++i) {
    SendState* s = active_send_[i];
    if (!s->owner || s->owner->cur_ == s->buf.get()) continue;
    try {
      s->owner->packet_done();
    } catch (const Error&) {
      // That channel's own next push reports the failure.
    }
  }
  std::lock_guard<engine::OptionalLock> g(ctx_.lock());
  for (RecvState* r : active_recv_) return_credits(*r, true);
}

void StreamEngine::deliver(RecvState& r, uint8_t flags, uint8_t dtype, uint64_t count, Packet* p) {
  if (r.err == Errc::ok && (dtype != static_cast<uint8_t>(r.dt) || count != r.count)) {
    r.err = dtype != static_cast<uint8_t>(r.dt) ? Errc::invalid_datatype : Errc::invalid_count;
    r.msg = mismatch_message(false, r.port, r.peer_rank, dtype, count,
                             static_cast<uint8_t>(r.dt), r.count);
  }
  if (flags & kDataEager) r.sender_eager = true;
  // A credit-mode sender waits for a grant; an eager receiver grants only on request
  // (the grant also tells a mismatched sender the receiver's side).
  if (flags & kDataHello) grant(r);
  if (!p) return;
  if (p->len == 0) { put_packet(p); return; }
  r.queue.push(p);
}

void StreamEngine::apply_credit(SendState& s, const EarlyCredit& c) {
  if (s.err == Errc::ok && (c.dtype != static_cast<uint8_t>(s.dt) || c.count != s.count)) {
    s.err = c.dtype != static_cast<uint8_t>(s.dt) ? Errc::invalid_datatype : Errc::invalid_count;
    s.msg = mismatch_message(true, s.port, s.peer_rank, static_cast<uint8_t>(s.dt), s.count,
                             c.dtype, c.count);
    return;
  }
  if (s.eager || s.err != Errc::ok) return;
  // The first grant is the receiver's buffer; our own degree may be smaller.
  if (c.flags & kCreditInitial) s.credits += std::min<uint64_t>(c.credits, std::min(s.degree, s.count));
  else s.credits += c.credits;
}

void StreamEngine::on_data(void* self, const fabric::FrameHeader& h, const std::byte* payload) {
  auto& e = *static_cast<StreamEngine*>(self);
  RecvPort& rp = e.recv_port(h.comm, static_cast<int>(h.src), h.tag);
  for (RecvState* r : rp.open) {
    if (r->seq != h.seq) continue;
    if (h.len > 0 && h.len <= r->direct_left && r->queue.empty() && r->err == Errc::ok &&
        h.dtype == static_cast<uint8_t>(r->dt) && h.aux == r->count) {
      // A pop_n waits with room for all of it: skip the packet copy.
      std::memcpy(r->direct, payload, h.len);
      r->direct += h.len;
      r->direct_left -= h.len;
      const size_t n = h.len / r->es;
      r->consumed += n;
      r->unreturned += n;
      if (h.flags & kDataEager) r->sender_eager = true;
      e.return_credits(*r, false);
      return;
    }
    Packet* p = nullptr;
    if (h.len > 0) {
      p = e.get_packet(h.len);
      std::memcpy(p->data(), payload, h.len);
    }
    e.deliver(*r, h.flags, h.dtype, h.aux, p);
    return;
  }
  if (seq_before(h.seq, rp.next_seq)) return;  // an abandoned channel's tail
  Packet* p = e.get_packet(h.len);
  if (h.len) std::memcpy(p->data(), payload, h.len);
  p->seq = h.seq;
  p->flags = h.flags;
  p->dtype = h.dtype;
  p->count = h.aux;
  rp.early.push(p);
}

void StreamEngine::on_credit(void* self, const fabric::FrameHeader& h, const std::byte* payload) {
  auto& e = *static_cast<StreamEngine*>(self);
  EarlyCredit c{h.seq, h.flags, h.dtype, h.aux, 0};
  if (h.len >= sizeof c.credits) std::memcpy(&c.credits, payload, sizeof c.credits);
  SendPort& sp = e.send_port(h.comm, static_cast<int>(h.src), h.tag);
  for (SendState* s : sp.open) {
    if (s->seq != h.seq) continue;
    e.apply_credit(*s, c);
    return;
  }
  if (seq_before(h.seq, sp.next_seq)) return;  // eager or finished sender: not needed
  sp.early.push_back(c);
}

}  // namespace interlace::stream::detail

namespace interlace::stream {
void start_engine(engine::Context& ctx) { detail::StreamEngine::of(ctx); }
}  // namespace interlace::stream
