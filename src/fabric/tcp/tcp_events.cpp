// The event side of the tcp fabric: accepting, authenticating, reading frames,
// flushing queues, waiting, and turning broken connections into lost peers.
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "fabric/tcp/tcp_fabric.hpp"
#include "fabric/tcp/tcp_net.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::tcp {

int TcpFabric::progress(FrameSink& sink) {
  epoll_event ev[64];
  int n = epoll_wait(epoll_fd_, ev, 64, 0);
  int delivered = 0;
  for (int i = 0; i < n; ++i) {
    uint64_t kind = ev[i].data.u64 >> 32;
    uint32_t index = static_cast<uint32_t>(ev[i].data.u64);
    if (kind == kTagConn) delivered += service(index, ev[i].events, sink);
    else if (kind == kTagListen) accept_all();
    // kTagWake: only wait() consumes wake-ups, or a wake() racing a progress
    // round would be lost before the caller blocks.
  }
  if (unauthenticated_ + closing_ > 0) check_deadlines();
  report_lost(sink);
  sweep();
  return delivered;
}

namespace {
int to_ms(double timeout_s) { return timeout_s < 0 ? -1 : static_cast<int>(std::ceil(timeout_s * 1000.0)); }
int min_ms(int a, int b) { return a < 0 ? b : b < 0 ? a : std::min(a, b); }
}  // namespace

// Level-triggered epoll: events stay ready until serviced, so waiting never consumes a
// frame; only the wake-up counter is read here (progress() leaves it for the waiter).
void TcpFabric::wait_events(int ms) {
  epoll_event ev[16];
  int n = epoll_wait(epoll_fd_, ev, 16, ms);
  for (int i = 0; i < n; ++i) {
    if (ev[i].data.u64 >> 32 == kTagWake) {
      uint64_t count;
      ssize_t r = ::read(wake_fd_, &count, sizeof count);
      (void)r;
    }
  }
}

int TcpFabric::closing_cap_ms() const {
  if (closing_ == 0) return -1;
  uint64_t now = now_ns(), first = UINT64_MAX;
  for (const Peer& p : peers_)
    if (p.life == Life::closing && p.closing_deadline_ns < first) first = p.closing_deadline_ns;
  return first <= now ? 0 : static_cast<int>((first - now) / 1000000 + 1);
}

void TcpFabric::wait(double timeout_s) {
  if (reports_pending_ > 0) return;
  wait_events(min_ms(to_ms(timeout_s), closing_cap_ms()));
}

// Peers and connections change under other threads while sleep_armed() runs: read them
// here, with the fabric held; the sleep itself uses only the epoll and event fds (epoll_ctl
// from a concurrent send() is safe against a running epoll_wait).
bool TcpFabric::arm_sleep() {
  if (reports_pending_ > 0) return false;
  armed_cap_ms_ = closing_cap_ms();
  return armed_cap_ms_ != 0;
}

void TcpFabric::sleep_armed(double timeout_s) { wait_events(min_ms(to_ms(timeout_s), armed_cap_ms_)); }

void TcpFabric::wake() {
  uint64_t one = 1;
  ssize_t r = ::write(wake_fd_, &one, sizeof one);
  (void)r;  // EAGAIN only when the counter is saturated: a wake-up is pending anyway
}

void TcpFabric::check_peers(FrameSink& sink) {
  if (unauthenticated_ + closing_ > 0) check_deadlines();
  report_lost(sink);
  sweep();
}

void TcpFabric::accept_all() {
  for (;;) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        IL_LOG(warn, "tcp: accept on " << endpoint_ << " failed: " << std::strerror(errno));
      return;
    }
    if (unauthenticated_ >= kMaxUnauthenticated) {
      IL_LOG(warn, "tcp: refusing connection from "
                       << format_sockaddr(reinterpret_cast<sockaddr*>(&ss)) << ": already "
                       << unauthenticated_ << " connections waiting for their hello");
      ::close(fd);
      continue;
    }
    set_nodelay(fd);
    // A connection that never authenticates must not hold a slot forever.
    uint64_t deadline = Deadline::after(config_.connect_timeout_s).at_ns;
    add_connection(std::make_unique<Connection>(
        fd, format_sockaddr(reinterpret_cast<sockaddr*>(&ss)), -1, deadline));
    ++unauthenticated_;
  }
}

int TcpFabric::service(size_t slot, uint32_t events, FrameSink& sink) {
  Connection* c = conns_[slot].get();
  if (!c || c->doomed) return 0;
  if ((events & EPOLLOUT) && c->authenticated()) {
    if (int err = c->out.flush(c->fd())) send_failed(c->rank(), slot, err);
    else if (c->out.pending() == 0) watch_output(*c, slot, false);
  }
  if (!(events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) return 0;
  int delivered = 0;
  for (;;) {
    c = conns_[slot].get();
    if (!c || c->doomed) return delivered;
    PumpResult r = c->pump(sink, rules_);
    delivered += r.delivered;
    if (r.kind == PumpResult::open) return delivered;
    if (r.kind == PumpResult::hello_ready) {
      admit(slot, r.hello_rank);
      continue;
    }
    if (!c->authenticated()) {
      if (r.kind == PumpResult::malformed)
        IL_LOG(error, "tcp: rejected connection from " << c->remote() << ": " << r.why);
      else
        IL_LOG(warn, "tcp: connection from " << c->remote() << " ended before its hello: " << r.why);
      doom(slot);
      return delivered;
    }
    std::string why = "rank " + std::to_string(c->rank()) + " (" + c->remote() + "): " + r.why;
    if (r.kind == PumpResult::malformed) IL_LOG(error, "tcp: dropping connection from " << why);
    connection_ended(slot, why, r.kind == PumpResult::malformed);
    return delivered;
  }
}

void TcpFabric::admit(size_t slot, uint32_t rank) {
  Connection& c = *conns_[slot];
  Peer& p = peers_[rank];
  std::string why;
  if (p.life == Life::lost)
    why = "rank " + std::to_string(rank) + " is already marked lost";
  else if (p.accepted_slot >= 0)
    why = "rank " + std::to_string(rank) + " already has a connection from " +
          conns_[static_cast<size_t>(p.accepted_slot)]->remote();
  if (!why.empty()) {
    IL_LOG(error, "tcp: rejected connection from " << c.remote() << ": " << why);
    doom(slot);
    return;
  }
  --unauthenticated_;
  c.admit(rank);
  p.accepted_slot = static_cast<int>(slot);
  IL_LOG(debug, "tcp: accepted rank " << rank << " from " << c.remote());
}

void TcpFabric::doom(size_t slot) {
  Connection& c = *conns_[slot];
  if (c.doomed) return;
  c.doomed = true;
  ++doomed_;
  if (!c.authenticated()) {
    --unauthenticated_;
    return;
  }
  Peer& p = peers_[static_cast<size_t>(c.rank())];
  if (p.own_slot == static_cast<int>(slot)) p.own_slot = -1;
  if (p.accepted_slot == static_cast<int>(slot)) p.accepted_slot = -1;
}

void TcpFabric::enter_closing(int peer, const std::string& why, double grace_s) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.life == Life::lost) return;
  if (p.life == Life::alive) {
    ++closing_;
    p.life = Life::closing;
    p.why = why;
  }
  p.closing_deadline_ns = Deadline::after(grace_s).at_ns;
}

void TcpFabric::send_failed(int peer, size_t slot, int err) {
  Connection& c = *conns_[slot];
  std::string why = "sending to rank " + std::to_string(peer) + " (" + c.remote() +
                    ") failed: " + std::strerror(err);
  c.out = OutQueue{};
  watch_output(c, slot, false);
  // The socket's receive side may still hold frames the peer sent before it
  // died: keep reading until it ends.
  enter_closing(peer, why, kDrainGraceS);
}

void TcpFabric::connection_ended(size_t slot, const std::string& why, bool protocol_error) {
  int peer = conns_[slot]->rank();
  Peer& p = peers_[static_cast<size_t>(peer)];
  // A peer that sent frames on our connection chose it as its only sending
  // socket: no connection of its own can still be waiting in the accept queue.
  bool may_have_pending_accept =
      p.own_slot == static_cast<int>(slot) && conns_[slot]->frames_read == 0;
  doom(slot);
  std::string all = p.life == Life::closing ? p.why + "; " + why : why;
  if (protocol_error) return mark_lost(peer, why);
  // Its other socket (two sockets are not ordered) may still carry frames.
  if (p.own_slot >= 0 || p.accepted_slot >= 0) return enter_closing(peer, all, kDrainGraceS);
  if (may_have_pending_accept && p.life == Life::alive)
    return enter_closing(peer, all, kAcceptGraceS);
  mark_lost(peer, all);
}

void TcpFabric::mark_lost(int peer, const std::string& why) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.life == Life::lost) return;
  if (p.life == Life::closing) --closing_;
  p.life = Life::lost;
  p.why = why;
  p.report_pending = true;
  ++reports_pending_;
  if (p.own_slot >= 0) doom(static_cast<size_t>(p.own_slot));
  if (p.accepted_slot >= 0) doom(static_cast<size_t>(p.accepted_slot));
  IL_LOG(info, "tcp: rank " << rank_ << " lost rank " << peer << ": " << why);
}

void TcpFabric::check_deadlines() {
  uint64_t now = now_ns();
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    if (p.life == Life::closing && now >= p.closing_deadline_ns)
      mark_lost(static_cast<int>(i), p.why + " (its other connection did not end within " +
                                         "the grace period)");
  }
  for (size_t i = 0; i < conns_.size(); ++i) {
    Connection* c = conns_[i].get();
    if (c && !c->doomed && !c->authenticated() && now >= c->hello_deadline_ns()) {
      IL_LOG(warn, "tcp: dropping connection from " << c->remote() << ": no hello within "
                                                    << config_.connect_timeout_s << " s");
      doom(i);
    }
  }
}

void TcpFabric::report_lost(FrameSink& sink) {
  if (reports_pending_ == 0) return;
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    if (!p.report_pending) continue;
    p.report_pending = false;
    --reports_pending_;
    sink.on_peer_lost(static_cast<int>(i), p.why);  // may call send(): it sees lost_peer
  }
}

void TcpFabric::sweep() {
  if (doomed_ == 0) return;
  for (auto& c : conns_) {
    if (c && c->doomed) {
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd(), nullptr);
      c.reset();
      --doomed_;
    }
  }
}

}  // namespace interlace::fabric::tcp
