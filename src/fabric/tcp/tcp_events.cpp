// The receive side of the tcp fabric: accepting, authenticating, reading
// frames, waiting, and turning broken connections into lost peers.
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

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
    if (kind == kTagIn) delivered += service_inbound(index, sink);
    else if (kind == kTagOut) on_output_event(static_cast<int>(index), ev[i].events);
    else if (kind == kTagListen) accept_all();
    // kTagWake: only wait() consumes wake-ups, or a wake() racing a progress
    // round would be lost before the caller blocks.
  }
  if (unauthenticated_ + closing_ > 0) check_deadlines();
  report_lost(sink);
  sweep();
  return delivered;
}

void TcpFabric::wait(double timeout_s) {
  if (reports_pending_ > 0) return;
  int ms = timeout_s < 0 ? -1 : static_cast<int>(std::ceil(timeout_s * 1000.0));
  if (closing_ > 0) {
    uint64_t now = now_ns(), first = UINT64_MAX;
    for (const Peer& p : peers_)
      if (p.life == Life::closing && p.closing_deadline_ns < first) first = p.closing_deadline_ns;
    int until = first <= now ? 0 : static_cast<int>((first - now) / 1000000 + 1);
    if (ms < 0 || until < ms) ms = until;
  }
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
    size_t slot = 0;
    while (slot < inbound_.size() && inbound_[slot]) ++slot;
    if (slot == inbound_.size()) inbound_.emplace_back();
    // A connection that never authenticates must not hold a slot forever.
    uint64_t deadline = Deadline::after(config_.connect_timeout_s).at_ns;
    inbound_[slot] = std::make_unique<InboundConn>(
        fd, format_sockaddr(reinterpret_cast<sockaddr*>(&ss)), deadline);
    ++unauthenticated_;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = epoll_tag(kTagIn, static_cast<uint32_t>(slot));
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  }
}

int TcpFabric::service_inbound(size_t slot, FrameSink& sink) {
  int delivered = 0;
  for (;;) {
    InboundConn* c = slot < inbound_.size() ? inbound_[slot].get() : nullptr;
    if (!c || c->doomed) return delivered;
    PumpResult r = c->pump(sink, rules_);
    delivered += r.delivered;
    if (r.kind == PumpResult::open) return delivered;
    if (r.kind == PumpResult::hello_ready) {
      admit(slot, r.hello_rank);
      continue;
    }
    if (!c->authenticated()) {
      if (r.kind == PumpResult::failed)
        IL_LOG(error, "tcp: rejected connection from " << c->remote() << ": " << r.why);
      else
        IL_LOG(warn, "tcp: connection from " << c->remote() << " ended before its hello: " << r.why);
      doom(*c);
      return delivered;
    }
    std::string why = "rank " + std::to_string(c->rank()) + " (" + c->remote() + "): " + r.why;
    if (r.kind == PumpResult::failed) IL_LOG(error, "tcp: dropping connection from " << why);
    inbound_ended(c->rank(), why);
    return delivered;
  }
}

void TcpFabric::admit(size_t slot, uint32_t rank) {
  InboundConn& c = *inbound_[slot];
  Peer& p = peers_[rank];
  std::string why;
  if (p.life == Life::lost)
    why = "rank " + std::to_string(rank) + " is already marked lost";
  else if (p.in_slot >= 0)
    why = "rank " + std::to_string(rank) + " already has a connection from " +
          inbound_[static_cast<size_t>(p.in_slot)]->remote();
  if (!why.empty()) {
    IL_LOG(error, "tcp: rejected connection from " << c.remote() << ": " << why);
    doom(c);
    return;
  }
  --unauthenticated_;
  c.admit(rank);
  p.in_slot = static_cast<int>(slot);
  IL_LOG(debug, "tcp: accepted rank " << rank << " from " << c.remote());
}

void TcpFabric::on_output_event(int peer, uint32_t events) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.out_fd < 0) return;
  std::string who = "rank " + std::to_string(peer) + " (" + p.out_addr + ")";
  if (events & EPOLLOUT) {
    if (int err = p.out.flush(p.out_fd)) {
      output_failed(peer, "sending to " + who + " failed: " + std::strerror(err));
      return;
    }
    if (p.out.pending() == 0) watch_output(p, peer, false);
  }
  if (!(events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) return;
  // Nothing is ever sent back on this socket, so readable means closed or broken.
  std::byte junk[256];
  ssize_t n;
  do {
    n = ::recv(p.out_fd, junk, sizeof junk, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  if (n > 0) {
    std::string why = who + " sent " + std::to_string(n) + " bytes on our sending connection";
    IL_LOG(error, "tcp: protocol error: " << why);
    mark_lost(peer, why);
    return;
  }
  output_failed(peer, n == 0 ? who + " closed the connection (if at startup: did it reject our "
                                     "hello? see its log)"
                             : "connection to " + who + " failed: " + std::strerror(errno));
}

void TcpFabric::close_output(Peer& p) {
  if (p.out_fd >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, p.out_fd, nullptr);
    ::close(p.out_fd);
    p.out_fd = -1;
  }
  p.out_polled = false;
  p.out = OutQueue{};
}

void TcpFabric::doom(InboundConn& c) {
  if (c.doomed) return;
  c.doomed = true;
  ++doomed_;
  if (!c.authenticated()) --unauthenticated_;
}

void TcpFabric::output_failed(int peer, const std::string& why) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.life != Life::alive) return;
  close_output(p);
  // Its frames may still be in flight on the other socket, or that socket may
  // still wait in our accept queue: report once it ends, or after a grace period.
  bool has_inbound = p.in_slot >= 0;
  p.life = Life::closing;
  p.why = why;
  p.closing_deadline_ns = Deadline::after(has_inbound ? kDrainGraceS : kAcceptGraceS).at_ns;
  ++closing_;
}

void TcpFabric::inbound_ended(int peer, const std::string& why) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.in_slot >= 0) doom(*inbound_[static_cast<size_t>(p.in_slot)]);
  p.in_slot = -1;
  mark_lost(peer, p.life == Life::closing ? p.why + "; " + why : why);
}

void TcpFabric::mark_lost(int peer, const std::string& why) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.life == Life::lost) return;
  if (p.life == Life::closing) --closing_;
  p.life = Life::lost;
  p.why = why;
  p.report_pending = true;
  ++reports_pending_;
  close_output(p);
  if (p.in_slot >= 0) doom(*inbound_[static_cast<size_t>(p.in_slot)]);
  p.in_slot = -1;
  IL_LOG(info, "tcp: rank " << rank_ << " lost rank " << peer << ": " << why);
}

void TcpFabric::check_deadlines() {
  uint64_t now = now_ns();
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    if (p.life == Life::closing && now >= p.closing_deadline_ns)
      mark_lost(static_cast<int>(i), p.why + " (no end of its incoming connection within " +
                                         "its grace period)");
  }
  for (auto& c : inbound_) {
    if (c && !c->doomed && !c->authenticated() && now >= c->hello_deadline_ns()) {
      IL_LOG(warn, "tcp: dropping connection from " << c->remote() << ": no hello within "
                                                    << config_.connect_timeout_s << " s");
      doom(*c);
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
  for (auto& c : inbound_) {
    if (c && c->doomed) {
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd(), nullptr);
      c.reset();
      --doomed_;
    }
  }
}

}  // namespace interlace::fabric::tcp
