// SendChannel: the out-of-line slow paths behind the inline push.
#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>

#include "stream/channel_common.hpp"

namespace interlace::stream {

using detail::SendState;
using detail::StreamEngine;
using Guard = std::lock_guard<engine::OptionalLock>;

SendChannel::SendChannel(const Communicator& comm, int dest, int port, size_t count, Datatype dt,
                         size_t degree) {
  const detail::OpenArgs a = detail::check_open(comm, dest, port, count, dt, "SendChannel", "destination");
  engine::Context& ctx = comm.context();
  Guard g(ctx.lock());
  StreamEngine& eng = StreamEngine::of(ctx);
  SendState* s = eng.new_send();
  detail::fill_endpoint(*s, eng, a, count, dt, degree);
  s->sport = &eng.send_port(a.comm, a.peer, port);
  s->seq = s->sport->next_seq++;
  s->sent = 0;
  s->credits = 0;
  s->eager = s->degree >= count;
  const size_t pe = std::max<size_t>(1, eng.elem_packet_bytes() / s->es);
  s->pkt_elems = s->eager ? pe : std::clamp<size_t>(s->degree / 2, 1, pe);
  const size_t need = std::min(s->pkt_elems, std::max<size_t>(count, 1)) * s->es;
  if (s->cap < need) {
    s->buf = std::make_unique<std::byte[]>(need);
    s->cap = need;
  }
  // Grants that arrived before we opened belong to this channel (or, for an eager
  // sender, are not needed).
  auto& early = s->sport->early;
  for (size_t i = 0; i < early.size();) {
    if (early[i].seq != s->seq) { ++i; continue; }
    eng.apply_credit(*s, early[i]);
    early.erase(early.begin() + static_cast<long>(i));
  }
  st_ = s;
  s->owner = this;
  esz_ = s->es;
  if (!s->eager && count > 0) {
    s->sport->open.push_back(s);
    s->registered = true;
    fabric::FrameHeader h;
    h.kind = detail::kKindStreamData;
    h.flags = detail::kDataHello;
    h.dtype = static_cast<uint8_t>(dt);
    h.comm = a.comm;
    h.tag = port;
    h.seq = s->seq;
    h.aux = count;
    Errc rc = eng.send(a.peer, h, nullptr, 0);
    if (rc != Errc::ok && rc != Errc::lost_peer) {
      release();
      throw_error(rc, "SendChannel: opening port " + std::to_string(port) + " to rank " +
                          std::to_string(dest) + " failed");
    }
  }
  cur_ = end_ = s->buf.get();
  if (s->eager) {
    const size_t n = std::min(s->pkt_elems, count);
    end_ = cur_ + n * s->es;
  }
}

SendChannel::~SendChannel() { release(); }

SendChannel& SendChannel::operator=(SendChannel&& o) noexcept {
  if (this != &o) {
    release();
    take(o);
  }
  return *this;
}

void SendChannel::take(SendChannel& o) noexcept {
  cur_ = o.cur_;
  end_ = o.end_;
  esz_ = o.esz_;
  st_ = o.st_;
  if (st_) st_->owner = this;
  o.st_ = nullptr;
  o.cur_ = o.end_ = nullptr;
}

void SendChannel::release() noexcept {
  if (!st_) return;
  Guard g(st_->eng->ctx().lock());
  st_->eng->free_send(st_);
  st_ = nullptr;
  cur_ = end_ = nullptr;
}

size_t SendChannel::count() const noexcept { return st_ ? st_->count : 0; }
bool SendChannel::eager() const noexcept { return st_ && st_->eager; }
Datatype SendChannel::datatype() const noexcept { return st_ ? st_->dt : Datatype::bytes; }

size_t SendChannel::remaining() const noexcept {
  if (!st_) return 0;
  return st_->count - st_->sent - static_cast<size_t>(cur_ - st_->buf.get()) / esz_;
}

namespace {

std::string where(const SendState& s) {
  return "stream port " + std::to_string(s.port) + " to rank " + std::to_string(s.peer_rank);
}

[[noreturn]] void throw_state_error(const SendState& s) { throw_error(s.err, s.msg); }

// Waits until done() or the peer is lost or a mismatch was seen; raises for the last two.
template <class F>
void wait_for(SendState& s, F done, const char* what) {
  engine::Context& ctx = s.eng->ctx();
  if (s.peer != ctx.rank()) {  // notice its death even if it never sent us a frame
    Guard g(ctx.lock());
    ctx.watch_peer(s.peer);
  }
  ctx.wait_until([&] { return done() || s.err != Errc::ok || ctx.peer_lost(s.peer); });
  Guard g(ctx.lock());
  if (s.err != Errc::ok) throw_state_error(s);
  if (!done())
    throw_error(Errc::lost_peer, where(s) + ": rank " + std::to_string(s.peer_rank) +
                                     " is lost while " + what + " (" + std::to_string(s.sent) +
                                     " of " + std::to_string(s.count) + " elements sent)");
}

// Hands n elements at p to the engine as one data frame. A full fabric queues one
// frame in the engine's backlog; we wait for it to drain before adding another.
void send_data(SendState& s, const void* p, size_t n) {
  engine::Context& ctx = s.eng->ctx();
  bool backlogged;
  {
    Guard g(ctx.lock());
    backlogged = ctx.backlogged(s.peer);
  }
  if (backlogged) wait_for(s, [&] { return !ctx.backlogged(s.peer); }, "the fabric is full");
  Guard g(ctx.lock());
  fabric::FrameHeader h;
  h.kind = detail::kKindStreamData;
  h.flags = s.eager ? detail::kDataEager : 0;
  h.dtype = static_cast<uint8_t>(s.dt);
  h.comm = s.comm;
  h.tag = s.port;
  h.seq = s.seq;
  h.aux = s.count;
  Errc rc = s.eng->send(s.peer, h, p, n * s.es);
  if (rc == Errc::lost_peer)
    throw_error(rc, where(s) + ": rank " + std::to_string(s.peer_rank) + " is lost (" +
                        std::to_string(s.sent) + " of " + std::to_string(s.count) + " elements sent)");
  if (rc != Errc::ok) throw_error(rc, where(s) + ": sending " + std::to_string(n) + " elements failed");
  s.sent += n;
  if (!s.eager) s.credits -= n;
  if (s.sent == s.count && s.registered) {
    // Closed: later grants for this seq are dropped by the port.
    auto& v = s.sport->open;
    v.erase(std::find(v.begin(), v.end(), &s));
    s.registered = false;
  }
}

size_t window_elems(const SendState& s) {
  size_t n = std::min(s.pkt_elems, s.count - s.sent);
  if (!s.eager) n = std::min<size_t>(n, s.credits);
  return n;
}

}  // namespace

void SendChannel::make_room() {
  if (!st_) throw_error(Errc::invalid_argument, "push on a SendChannel that is not open");
  SendState& s = *st_;
  // Credits and errors arrive from the progress thread (INTERLACE_PROGRESS=thread):
  // read them under the lock, but never hold it across the wait.
  bool starved;
  {
    Guard g(s.eng->ctx().lock());
    if (s.err != Errc::ok) throw_state_error(s);
    if (s.sent == s.count)
      throw_error(Errc::invalid_count, where(s) + ": push past the count " + std::to_string(s.count) +
                                           " of the channel (it is closed)");
    starved = !s.eager && s.credits == 0;
  }
  if (starved) {
    s.eng->flush_all();  // our partial packets and credits may be what the peer waits for
    wait_for(s, [&] { return s.credits > 0; }, "waiting for credits");
  }
  Guard g(s.eng->ctx().lock());
  cur_ = s.buf.get();
  end_ = cur_ + window_elems(s) * esz_;
}

void SendChannel::packet_done() {
  SendState& s = *st_;
  std::byte* base = s.buf.get();
  const size_t n = static_cast<size_t>(cur_ - base) / esz_;
  cur_ = end_ = base;  // if send_data throws, the channel stays consistent
  send_data(s, base, n);
  Guard g(s.eng->ctx().lock());
  end_ = base + window_elems(s) * esz_;
}

void SendChannel::flush() {
  if (st_ && cur_ != st_->buf.get()) packet_done();
}

void SendChannel::push_n(const void* elems, size_t n) {
  if (n == 0) return;
  if (!st_) throw_error(Errc::invalid_argument, "push_n on a SendChannel that is not open");
  if (!elems) throw_error(Errc::invalid_argument, "push_n: buffer is null but n is " + std::to_string(n));
  SendState& s = *st_;
  const size_t left = remaining();
  if (n > left)
    throw_error(Errc::invalid_count, where(s) + ": push_n of " + std::to_string(n) +
                                         " elements exceeds the " + std::to_string(left) +
                                         " left of the count " + std::to_string(s.count));
  const std::byte* p = static_cast<const std::byte*>(elems);
  const size_t bulk = std::max<size_t>(1, s.eng->bulk_frame_bytes() / esz_);
  while (n > 0) {
    if (cur_ == end_) make_room();
    const size_t room = static_cast<size_t>(end_ - cur_) / esz_;
    size_t m;
    if (cur_ == s.buf.get() && n >= room) {
      // At least a whole packet: send from the caller's memory, skipping the staging copy.
      m = std::min(n, bulk);
      if (!s.eager) {
        Guard g(s.eng->ctx().lock());
        m = std::min<size_t>(m, s.credits);
      }
      cur_ = end_ = s.buf.get();
      send_data(s, p, m);
      Guard g(s.eng->ctx().lock());
      end_ = cur_ + window_elems(s) * esz_;
    } else {
      m = std::min(n, room);
      std::memcpy(cur_, p, m * esz_);
      cur_ += m * esz_;
      if (cur_ == end_) packet_done();
    }
    p += m * esz_;
    n -= m;
  }
}

}  // namespace interlace::stream
