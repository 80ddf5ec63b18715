// RecvChannel: the out-of-line slow paths behind the inline pop.
#include <algorithm>
#include <cstring>
#include <mutex>

#include "stream/channel_common.hpp"

namespace interlace::stream {

using detail::Packet;
using detail::RecvState;
using detail::StreamEngine;
using Guard = std::lock_guard<engine::OptionalLock>;

RecvChannel::RecvChannel(const Communicator& comm, int source, int port, size_t count, Datatype dt,
                         size_t degree) {
  const detail::OpenArgs a = detail::check_open(comm, source, port, count, dt, "RecvChannel", "source");
  engine::Context& ctx = comm.context();
  Guard g(ctx.lock());
  StreamEngine& eng = StreamEngine::of(ctx);
  RecvState* r = eng.new_recv();
  detail::fill_endpoint(*r, eng, a, count, dt, degree);
  r->rport = &eng.recv_port(a.comm, a.peer, port);
  r->seq = r->rport->next_seq++;
  r->consumed = 0;
  r->granted = false;
  r->sender_eager = false;
  r->unreturned = 0;
  r->threshold = 1;
  r->rport->open.push_back(r);
  r->registered = true;
  st_ = r;
  esz_ = r->es;
  // A channel whose degree covers the count is eager: the sender needs no grant.
  if (r->degree < count) eng.grant(*r);
  // Data (and hellos) that arrived before we opened, in arrival order.
  detail::PacketList keep;
  while (Packet* p = r->rport->early.pop()) {
    if (p->seq == r->seq) eng.deliver(*r, p->flags, p->dtype, p->count, p);
    else keep.push(p);
  }
  r->rport->early = keep;
}

RecvChannel::~RecvChannel() { release(); }

RecvChannel& RecvChannel::operator=(RecvChannel&& o) noexcept {
  if (this != &o) {
    release();
    take(o);
  }
  return *this;
}

void RecvChannel::take(RecvChannel& o) noexcept {
  cur_ = o.cur_;
  end_ = o.end_;
  esz_ = o.esz_;
  st_ = o.st_;
  o.st_ = nullptr;
  o.cur_ = o.end_ = nullptr;
}

void RecvChannel::release() noexcept {
  if (!st_) return;
  Guard g(st_->eng->ctx().lock());
  st_->eng->free_recv(st_);
  st_ = nullptr;
  cur_ = end_ = nullptr;
}

size_t RecvChannel::count() const noexcept { return st_ ? st_->count : 0; }
Datatype RecvChannel::datatype() const noexcept { return st_ ? st_->dt : Datatype::bytes; }

size_t RecvChannel::remaining() const noexcept {
  if (!st_) return 0;
  size_t read = st_->consumed;
  if (st_->cur && cur_) read += static_cast<size_t>(cur_ - st_->cur->data()) / esz_;
  return st_->count - std::min(read, st_->count);
}

namespace {

std::string where(const RecvState& r) {
  return "stream port " + std::to_string(r.port) + " from rank " + std::to_string(r.peer_rank);
}

void release_packet(RecvState& r) {
  const size_t n = r.cur->len / r.es;
  r.consumed += n;
  r.unreturned += n;
  r.eng->put_packet(r.cur);
  r.cur = nullptr;
}

}  // namespace

void RecvChannel::packet_read() {
  RecvState& r = *st_;
  Guard g(r.eng->ctx().lock());
  release_packet(r);
  cur_ = end_ = nullptr;
  r.eng->return_credits(r, false);
}

void RecvChannel::refill() {
  if (!st_) throw_error(Errc::invalid_argument, "pop on a RecvChannel that is not open");
  RecvState& r = *st_;
  engine::Context& ctx = r.eng->ctx();
  bool have;
  {
    Guard g(ctx.lock());
    if (r.cur) release_packet(r);
    cur_ = end_ = nullptr;
    if (r.err != Errc::ok) throw_error(r.err, r.msg);
    if (r.consumed >= r.count)
      throw_error(Errc::invalid_count, where(r) + ": pop past the count " + std::to_string(r.count) +
                                           " of the channel (it is closed)");
    have = !r.queue.empty();
  }
  if (!have) {
    r.eng->flush_all();  // about to block: whatever the peers wait for from us goes out
    if (r.peer != ctx.rank()) {  // notice its death even if it never sent us a frame
      Guard g(ctx.lock());
      ctx.watch_peer(r.peer);
    }
    ctx.wait_until([&] { return !r.queue.empty() || r.err != Errc::ok || ctx.peer_lost(r.peer); });
  }
  Guard g(ctx.lock());
  if (r.err != Errc::ok) throw_error(r.err, r.msg);
  if (r.queue.empty())
    throw_error(Errc::lost_peer, where(r) + ": rank " + std::to_string(r.peer_rank) +
                                     " is lost (" + std::to_string(r.consumed) + " of " +
                                     std::to_string(r.count) + " elements received)");
  r.cur = r.queue.pop();
  cur_ = r.cur->data();
  end_ = cur_ + r.cur->len;
}

void RecvChannel::pop_n(void* elems, size_t n) {
  if (n == 0) return;
  if (!st_) throw_error(Errc::invalid_argument, "pop_n on a RecvChannel that is not open");
  if (!elems) throw_error(Errc::invalid_argument, "pop_n: buffer is null but n is " + std::to_string(n));
  const size_t left = remaining();
  if (n > left)
    throw_error(Errc::invalid_count, where(*st_) + ": pop_n of " + std::to_string(n) +
                                         " elements exceeds the " + std::to_string(left) +
                                         " left of the count " + std::to_string(st_->count));
  std::byte* p = static_cast<std::byte*>(elems);
  RecvState& r = *st_;
  engine::Context& ctx = r.eng->ctx();
  while (n > 0) {
    if (cur_ == end_ && n * esz_ >= detail::kDirectMinBytes) {
      // Nothing buffered: post our buffer so arriving frames are copied once, into it.
      bool posted = false;
      {
        Guard g(ctx.lock());
        if (!r.cur && r.queue.empty() && r.err == Errc::ok) {
          r.direct = p;
          r.direct_left = n * esz_;
          posted = true;
        }
      }
      if (posted) {
        r.eng->flush_all();
        if (r.peer != ctx.rank()) {
          Guard g(ctx.lock());
          ctx.watch_peer(r.peer);
        }
        ctx.wait_until([&] {
          return r.direct_left == 0 || !r.queue.empty() || r.err != Errc::ok || ctx.peer_lost(r.peer);
        });
        Guard g(ctx.lock());
        const size_t got = n * esz_ - r.direct_left;
        r.direct = nullptr;
        r.direct_left = 0;
        p += got;
        n -= got / esz_;
        if (n == 0) break;
        if (r.err != Errc::ok) throw_error(r.err, r.msg);
        if (r.queue.empty() && ctx.peer_lost(r.peer))
          throw_error(Errc::lost_peer, where(r) + ": rank " + std::to_string(r.peer_rank) +
                                           " is lost (" + std::to_string(r.consumed) + " of " +
                                           std::to_string(r.count) + " elements received)");
        if (r.queue.empty()) continue;
      }
    }
    if (cur_ == end_) refill();
    const size_t m = std::min(n, static_cast<size_t>(end_ - cur_) / esz_);
    std::memcpy(p, cur_, m * esz_);
    cur_ += m * esz_;
    if (cur_ == end_) packet_read();
    p += m * esz_;
    n -= m;
  }
}

}  // namespace interlace::stream
