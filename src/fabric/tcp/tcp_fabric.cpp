// Setup, connecting and the send path of the tcp fabric.
#include "fabric/tcp/tcp_fabric.hpp"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fabric/tcp/tcp_hello.hpp"
#include "fabric/tcp/tcp_net.hpp"
#include "interlace/bootstrap/store.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::tcp {
namespace {

std::string address_key(const std::string& job_id, int rank) {
  return "tcp/" + job_id + "/" + std::to_string(rank);
}

void epoll_add(int epfd, int fd, uint32_t events, uint64_t tag) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
    throw_system_error("tcp: epoll_ctl(ADD) for fd " + std::to_string(fd));
}

}  // namespace

TcpFabric::TcpFabric(const FabricInit& init)
    : rank_(init.rank), size_(init.size), job_id_(init.job_id), secret_(init.secret),
      store_(init.store), config_(init.config) {
  if (size_ < 1 || rank_ < 0 || rank_ >= size_)
    throw_error(Errc::invalid_rank, "tcp fabric: rank " + std::to_string(rank_) +
                                        " out of range for size " + std::to_string(size_));
  if (!store_ && size_ > 1)
    throw_error(Errc::invalid_argument, "tcp fabric: size " + std::to_string(size_) +
                                            " needs a store to exchange addresses (store is null)");
  if (job_id_.size() > kMaxHelloField || secret_.size() > kMaxHelloField)
    throw_error(Errc::invalid_argument,
                "tcp fabric: job id (" + std::to_string(job_id_.size()) + " bytes) and secret (" +
                    std::to_string(secret_.size()) + " bytes) must be at most " +
                    std::to_string(kMaxHelloField) + " bytes");
  rules_ = InboundRules{job_id_, secret_, static_cast<uint32_t>(rank_),
                        static_cast<uint32_t>(size_), kMaxPayload,
                        !config_.routes_dir.empty()};
  peers_.resize(static_cast<size_t>(size_));
  try {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw_system_error("tcp: epoll_create1");
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) throw_system_error("tcp: eventfd");
    Listener l = open_listener(choose_listen_host(config_.tcp_interface));
    listen_fd_ = l.fd;
    endpoint_ = l.endpoint;
    epoll_add(epoll_fd_, listen_fd_, EPOLLIN, epoll_tag(kTagListen, 0));
    epoll_add(epoll_fd_, wake_fd_, EPOLLIN, epoll_tag(kTagWake, 0));
    if (store_) store_->set(address_key(job_id_, rank_), endpoint_);
  } catch (...) {
    for (int fd : {listen_fd_, wake_fd_, epoll_fd_})
      if (fd >= 0) ::close(fd);
    throw;
  }
  IL_LOG(debug, "tcp: rank " << rank_ << " listening on " << endpoint_);
}

TcpFabric::~TcpFabric() {
  close_gracefully();
  for (int fd : {listen_fd_, wake_fd_, epoll_fd_})
    if (fd >= 0) ::close(fd);
}

void TcpFabric::close_gracefully() {
  // send() said ok for queued frames, so push them out first (bounded: a peer
  // that stopped reading must not hang our exit).
  Deadline deadline = Deadline::after(kCloseFlushS);
  for (auto& c : conns_) {
    while (c && !c->doomed && c->out.pending() > 0 && !deadline.expired()) {
      if (c->out.flush(c->fd()) != 0) break;
      pollfd pf{c->fd(), POLLOUT, 0};
      if (c->out.pending() > 0) poll(&pf, 1, 100);
    }
  }
  // Closing a socket that holds unread bytes sends a RST, which discards what
  // our kernel has not delivered yet. So: FIN after the data, wait until the
  // peer's kernel acknowledged all of it, and only then close.
  for (auto& c : conns_)
    if (c && !c->doomed) ::shutdown(c->fd(), SHUT_WR);
  for (auto& c : conns_) {
    int unacked = 0;
    while (c && !c->doomed && ioctl(c->fd(), SIOCOUTQ, &unacked) == 0 && unacked > 0 &&
           !deadline.expired())
      poll(nullptr, 0, 1);
  }
  conns_.clear();
}

size_t TcpFabric::add_connection(std::unique_ptr<Connection> c) {
  size_t slot = 0;
  while (slot < conns_.size() && conns_[slot]) ++slot;
  if (slot == conns_.size()) conns_.emplace_back();
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.u64 = epoll_tag(kTagConn, static_cast<uint32_t>(slot));
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, c->fd(), &ev) != 0)
    throw_system_error("tcp: epoll_ctl(ADD) for a connection to " + c->remote());
  conns_[slot] = std::move(c);
  return slot;
}

int TcpFabric::connect_peer(int peer) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  std::string addr = endpoint_;
  std::string key = address_key(job_id_, peer);
  if (peer != rank_) {
    try {
      addr = store_->get(key, config_.connect_timeout_s);
    } catch (const Error& e) {
      std::string why = "rank " + std::to_string(peer) + " did not publish its tcp address (key '" +
                        key + "') within " + std::to_string(config_.connect_timeout_s) +
                        " s: " + e.what();
      IL_LOG(error, "tcp: " << why);
      mark_lost(peer, why);
      return -1;
    }
  }
  std::string why;
  int fd = connect_endpoint(addr, Deadline::after(config_.connect_timeout_s), &why);
  if (fd < 0) {
    why = "cannot reach rank " + std::to_string(peer) + ": " + why;
    IL_LOG(error, "tcp: " << why);
    mark_lost(peer, why);
    return -1;
  }
  p.addr = addr;
  auto conn = std::make_unique<Connection>(fd, addr, peer, 0);
  // Queued, so it leaves together with the first frame.
  auto hello = encode_hello(job_id_, secret_, static_cast<uint32_t>(rank_),
                            static_cast<uint32_t>(peer), static_cast<uint32_t>(size_));
  conn->out.append(hello.data(), hello.size());
  size_t slot = add_connection(std::move(conn));
  p.own_slot = static_cast<int>(slot);
  return p.own_slot;
}

void TcpFabric::watch_output(Connection& c, size_t slot, bool on) {
  if (c.out_polled == on) return;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | (on ? EPOLLOUT : 0u);
  ev.data.u64 = epoll_tag(kTagConn, static_cast<uint32_t>(slot));
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd(), &ev);
  c.out_polled = on;
}

Errc TcpFabric::send(int peer, const FrameHeader& h, const void* payload, size_t len) {
  if (peer < 0 || peer >= size_) return Errc::invalid_rank;
  if (len > kMaxPayload) return Errc::invalid_argument;
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.life != Life::alive) return Errc::lost_peer;
  if (p.send_slot < 0) {
    // Chosen once: frames of one direction must never switch sockets.
    p.send_slot = p.accepted_slot >= 0 ? p.accepted_slot : connect_peer(peer);
    if (p.send_slot < 0) return Errc::lost_peer;
  }
  size_t slot = static_cast<size_t>(p.send_slot);
  Connection& c = *conns_[slot];
  FrameHeader wire = h;
  wire.len = len;
  if (c.out.pending() > 0) {
    if (int err = c.out.flush(c.fd())) {
      send_failed(peer, slot, err);
      return Errc::lost_peer;
    }
    if (c.out.pending() > 0) {
      if (c.out.pending() + sizeof wire + len > kOutQueueBound) return Errc::would_block;
      c.out.append(&wire, sizeof wire);
      if (len) c.out.append(payload, len);
      watch_output(c, slot, true);
      return Errc::ok;
    }
  }
  // Fast path: one syscall hands header and payload to the kernel.
  iovec iov[2] = {{&wire, sizeof wire}, {const_cast<void*>(payload), len}};
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = len ? 2 : 1;
  ssize_t n;
  do {
    n = ::sendmsg(c.fd(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      send_failed(peer, slot, errno);
      return Errc::lost_peer;
    }
    n = 0;
  }
  size_t sent = static_cast<size_t>(n);
  if (sent < sizeof wire + len) {
    // The frame is ours now (the caller may reuse its buffer): keep the rest.
    if (sent < sizeof wire) {
      c.out.append(reinterpret_cast<const std::byte*>(&wire) + sent, sizeof wire - sent);
      sent = sizeof wire;
    }
    if (len) c.out.append(static_cast<const std::byte*>(payload) + (sent - sizeof wire),
                          len - (sent - sizeof wire));
    watch_output(c, slot, true);
  }
  return Errc::ok;
}

}  // namespace interlace::fabric::tcp

namespace interlace::fabric {
std::unique_ptr<Fabric> make_tcp_fabric(const FabricInit& init) {
  return std::make_unique<tcp::TcpFabric>(init);
}
}  // namespace interlace::fabric
