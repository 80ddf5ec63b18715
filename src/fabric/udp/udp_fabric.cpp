// Setup, addressing and the send path of the udp fabric.
#include "fabric/udp/udp_fabric.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fabric/tcp/tcp_net.hpp"
#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::udp {
namespace {

std::string address_key(const std::string& job_id, int rank) {
  return "udp/" + job_id + "/" + std::to_string(rank);
}

// IPv4 only: every address in the table and the store is "a.b.c.d:port".
bool resolve(const std::string& host, uint16_t port, sockaddr_in* out, std::string* why) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res); rc != 0 || !res) {
    *why = "cannot resolve '" + host + "' to an IPv4 address: " + gai_strerror(rc);
    return false;
  }
  *out = *reinterpret_cast<sockaddr_in*>(res->ai_addr);
  out->sin_port = htons(port);
  freeaddrinfo(res);
  return true;
}

bool parse_endpoint(const std::string& ep, sockaddr_in* out, std::string* why) {
  const size_t colon = ep.rfind(':');
  if (colon == std::string::npos) {
    *why = "malformed address '" + ep + "'";
    return false;
  }
  const int port = std::atoi(ep.c_str() + colon + 1);
  if (port <= 0 || port > 65535) {
    *why = "malformed port in '" + ep + "'";
    return false;
  }
  return resolve(ep.substr(0, colon), static_cast<uint16_t>(port), out, why);
}

uint64_t addr_key(const sockaddr_in& a) {
  return static_cast<uint64_t>(ntohl(a.sin_addr.s_addr)) << 16 | ntohs(a.sin_port);
}

}  // namespace

UdpFabric::UdpFabric(const FabricInit& init)
    : rank_(init.rank), size_(init.size), job_id_(init.job_id),
      token_(job_token(init.job_id, init.secret)), store_(init.store), config_(init.config) {
  if (size_ < 1 || rank_ < 0 || rank_ >= size_ || size_ > 65535)
    throw_error(Errc::invalid_rank, "udp fabric: rank " + std::to_string(rank_) +
                                        " out of range for size " + std::to_string(size_) +
                                        " (at most 65535 ranks)");
  opt_ = options_from_env(size_);
  dgram_payload_ = opt_.mtu - kIpUdpHeaders - kDgramHeader;
  if (opt_.peers.empty() && !store_ && size_ > 1)
    throw_error(Errc::invalid_argument,
                "udp fabric: size " + std::to_string(size_) +
                    " needs a store to exchange addresses, or INTERLACE_UDP_PEERS");
  for (int r : opt_.zrl_ranks) {
    if (r == rank_)
      throw_error(Errc::invalid_argument, "INTERLACE_ZRLMPI_RANKS lists rank " + std::to_string(r) +
                                              ", which is this interlace rank");
    if (opt_.peers.empty())
      throw_error(Errc::invalid_argument,
                  "INTERLACE_ZRLMPI_RANKS needs INTERLACE_UDP_PEERS: ZRLMPI nodes never publish "
                  "their address in the store");
  }
  peers_.resize(static_cast<size_t>(size_));
  rbuf_.resize(16 * 65536);
  start_s_ = now_s();
  for (Peer& p : peers_) p.last_heard = start_s_;
  try {
    open_socket();
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw_system_error("udp: epoll_create1");
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) throw_system_error("udp: eventfd");
    for (int fd : {fd_, wake_fd_}) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) throw_system_error("udp: epoll_ctl");
    }
    for (int r = 0; r < size_ && !opt_.peers.empty(); ++r) {
      if (r == rank_) continue;
      Peer& p = peers_[static_cast<size_t>(r)];
      std::string why;
      if (!resolve(opt_.peers[r].host, opt_.peers[r].port, &p.addr, &why))
        throw_error(Errc::invalid_argument, "INTERLACE_UDP_PEERS entry for rank " +
                                                std::to_string(r) + ": " + why);
      p.addr_known = true;
      p.addr_text = tcp::format_sockaddr(reinterpret_cast<sockaddr*>(&p.addr));
      by_addr_[addr_key(p.addr)] = r;
    }
    if (store_ && opt_.peers.empty()) store_->set(address_key(job_id_, rank_), endpoint_);
    if (opt_.faults.any())
      faults_ = std::make_unique<FaultInjector>(
          opt_.faults, rank_, start_s_,
          [this](const sockaddr_in& to, const std::byte* d, size_t n) { raw_sendto(to, d, n); });
    if (!opt_.zrl_ranks.empty()) {
      std::vector<bool> zrl(static_cast<size_t>(size_), false);
      for (int r : opt_.zrl_ranks) {
        zrl[static_cast<size_t>(r)] = true;
        peers_[static_cast<size_t>(r)].zrl = true;
      }
      zrl_ = make_zrl_link(rank_, size_, zrl, *this, config_);
    }
  } catch (...) {
    for (int fd : {fd_, wake_fd_, epoll_fd_})
      if (fd >= 0) ::close(fd);
    throw;
  }
  IL_LOG(debug, "udp: rank " << rank_ << " bound " << endpoint_ << ", "
                             << dgram_payload_ << "-byte payloads, window " << opt_.window
                             << (opt_.mode == Mode::gbn ? " (go-back-N)" : " (selective repeat)"));
}

void UdpFabric::open_socket() {
  std::string host;
  int port = 0;
  std::string source;
  if (!opt_.peers.empty()) {
    host = opt_.peers[static_cast<size_t>(rank_)].host;
    port = opt_.peers[static_cast<size_t>(rank_)].port;
    source = "INTERLACE_UDP_PEERS entry for rank " + std::to_string(rank_);
  } else {
    host = tcp::choose_listen_host(opt_.addr);
    port = opt_.port > 0 ? opt_.port : 0;
    source = opt_.port > 0 ? "INTERLACE_UDP_PORT=" + std::to_string(opt_.port) : "ephemeral port";
  }
  sockaddr_in me{};
  std::string why;
  if (!resolve(host, static_cast<uint16_t>(port), &me, &why))
    throw_error(Errc::invalid_argument, "udp: bind address (INTERLACE_UDP_ADDR): " + why);
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw_system_error("udp: socket()");
  // Bigger buffers absorb the bursts of several windows arriving at once; the
  // forced variant needs privileges, the plain one is capped by the system.
  int bytes = 4 << 20;
  for (int opt : {SO_RCVBUF, SO_SNDBUF}) {
    int forced = opt == SO_RCVBUF ? SO_RCVBUFFORCE : SO_SNDBUFFORCE;
    if (setsockopt(fd_, SOL_SOCKET, forced, &bytes, sizeof bytes) != 0)
      setsockopt(fd_, SOL_SOCKET, opt, &bytes, sizeof bytes);
  }
  if (bind(fd_, reinterpret_cast<sockaddr*>(&me), sizeof me) != 0) {
    const int err = errno;
    throw_error(err == EADDRINUSE ? Errc::invalid_argument : Errc::system,
                "udp: cannot bind UDP " + host + ":" + std::to_string(port) + " (" + source +
                    "): " + std::strerror(err) +
                    (err == EADDRINUSE ? " (another process holds this port)" : ""));
  }
  sockaddr_in got{};
  socklen_t len = sizeof got;
  getsockname(fd_, reinterpret_cast<sockaddr*>(&got), &len);
  endpoint_ = tcp::format_sockaddr(reinterpret_cast<sockaddr*>(&got));
}

UdpFabric::~UdpFabric() {
  try {
    flush_before_close();
  } catch (...) {
  }
  for (size_t i = 0; i < peers_.size(); ++i)
    if (peers_[i].srtt >= 0)
      IL_LOG(debug, "udp: rank " << rank_ << " -> " << i << ": srtt " << peers_[i].srtt * 1e3
                                 << " ms, rto " << peers_[i].rto * 1e3 << " ms, "
                                 << peers_[i].next_seq << " datagrams, " << retransmits_
                                 << " retransmissions in all");
  zrl_.reset();
  for (int fd : {fd_, wake_fd_, epoll_fd_})
    if (fd >= 0) ::close(fd);
}

bool UdpFabric::resolve_peer(int peer, double timeout_s) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.addr_known || peer == rank_) return true;
  if (!store_) return false;
  const std::string key = address_key(job_id_, peer);
  std::string ep;
  try {
    if (timeout_s <= 0 && !store_->check(key)) return false;
    ep = store_->get(key, timeout_s > 0 ? timeout_s : 1.0);
  } catch (const Error& e) {
    mark_lost(peer, "rank " + std::to_string(peer) + " did not publish its udp address (key '" +
                        key + "') within " + std::to_string(timeout_s) + " s: " + e.what());
    return false;
  }
  std::string why;
  if (!parse_endpoint(ep, &p.addr, &why)) {
    mark_lost(peer, "rank " + std::to_string(peer) + " published a bad address: " + why);
    return false;
  }
  p.addr_known = true;
  p.addr_text = ep;
  by_addr_[addr_key(p.addr)] = peer;
  return true;
}

int UdpFabric::peer_of(const sockaddr_in& from) const {
  auto it = by_addr_.find(addr_key(from));
  return it == by_addr_.end() ? -1 : it->second;
}

// Back-off is per datagram (doubling with each resend of it), so a burst of losses
// in one window does not inflate the timer of datagrams that were never resent.
double UdpFabric::rto_now(const Peer& p, int timeouts) const {
  return std::min(kMaxRtoS, p.rto * static_cast<double>(1u << std::min(timeouts, 10)));
}

Errc UdpFabric::send(int peer, const FrameHeader& h, const void* payload, size_t len) {
  if (peer < 0 || peer >= size_) return Errc::invalid_rank;
  if (len > kMaxPayload) return Errc::invalid_argument;
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.life != Life::alive) return Errc::lost_peer;
  if (armed_.load(std::memory_order_relaxed) && armed_.exchange(false, std::memory_order_acq_rel))
    wake();
  if (p.zrl) return zrl_->send(peer, h, payload, len);
  FrameHeader wire = h;
  wire.len = len;
  const size_t total = sizeof wire + len;
  if (peer == rank_) {
    if (self_bytes_ > 0 && self_bytes_ + total > kOutQueueBound) return Errc::would_block;
    std::vector<std::byte> f(total);
    std::memcpy(f.data(), &wire, sizeof wire);
    if (len) std::memcpy(f.data() + sizeof wire, payload, len);
    self_bytes_ += total;
    self_q_.push_back(std::move(f));
    return Errc::ok;
  }
  if (!p.addr_known && !resolve_peer(peer, config_.connect_timeout_s)) return Errc::lost_peer;
  const size_t pending = (p.out.size() - p.out_head) + p.unacked_bytes;
  if (pending > 0 && pending + total > kOutQueueBound) return Errc::would_block;
  const double now = now_s();
  if (!p.watched) {
    p.watched = true;
    p.last_heard = std::max(p.last_heard, now);
  }
  if (needs_handshake(total))
    p.marks.push_back(LargeMark{p.out_off + (p.out.size() - p.out_head), total, p.next_mark_id++});
  enqueue(p, &wire, sizeof wire);
  if (len) enqueue(p, payload, len);
  pump_out(peer, now);
  return Errc::ok;
}

void UdpFabric::enqueue(Peer& p, const void* data, size_t len) {
  const auto* b = static_cast<const std::byte*>(data);
  p.out.insert(p.out.end(), b, b + len);
}

void UdpFabric::pump_out(int peer, double now) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  const size_t window = static_cast<size_t>(opt_.window);
  const size_t span = opt_.mode == Mode::gbn ? window : std::max<size_t>(window, std::min<size_t>(4 * window, kSackBits));
  while (p.unacked.size() - p.sacked < window && p.unacked.size() < span && p.out.size() > p.out_head) {
    size_t n = std::min(p.out.size() - p.out_head, dgram_payload_);
    if (!p.marks.empty()) {
      LargeMark& m = p.marks.front();
      if (m.off == p.out_off && !m.granted) {
        if (m.reqs == 0 || now >= m.req_due) {
          send_ctl(peer, kReq, 0, m.id, &m.bytes, sizeof m.bytes);
          m.req_due = now + rto_now(p, m.reqs + 1);
          ++m.reqs;
        }
        break;
      }
      if (m.off > p.out_off) n = std::min<uint64_t>(n, m.off - p.out_off);
    }
    // An ack we owe rides along unless it needs the selective bitmap (a hole);
    // the payload shrinks by its 4 bytes so the datagram still fits the MTU.
    const bool piggy = opt_.piggyback && (p.ack_pending || p.ack_deferred) && p.ahead.empty();
    const size_t pre = piggy ? kPiggyAck : 0;
    if (piggy) n = std::min(n, dgram_payload_ - kPiggyAck);
    OutDgram d{p.next_seq++, std::vector<std::byte>(kDgramHeader + pre + n), now, now + rto_now(p, 0)};
    DgramHeader dh{kData, piggy ? kFlagAck : uint8_t{0}, static_cast<uint16_t>(rank_), token_, d.seq};
    encode_header(dh, d.bytes.data());
    if (piggy) {
      for (size_t i = 0; i < kPiggyAck; ++i)
        d.bytes[kDgramHeader + i] = std::byte((p.expected >> (8 * i)) & 0xff);
      ack_sent(p);
    }
    std::memcpy(d.bytes.data() + kDgramHeader + pre, p.out.data() + p.out_head, n);
    p.last_data_out = now;
    p.out_head += n;
    p.out_off += n;
    if (!p.marks.empty() && p.marks.front().granted && p.marks.front().off < p.out_off)
      p.marks.pop_front();
    if (p.out_head == p.out.size()) {
      p.out.clear();
      p.out_head = 0;
    } else if (p.out_head >= (256u << 10) && p.out_head * 2 >= p.out.size()) {
      p.out.erase(p.out.begin(), p.out.begin() + static_cast<std::ptrdiff_t>(p.out_head));
      p.out_head = 0;
    }
    transmit(p, d.bytes.data(), d.bytes.size(), false);
    p.unacked_bytes += d.bytes.size();
    p.unacked.push_back(std::move(d));
  }
}

void UdpFabric::send_ctl(int peer, uint8_t type, uint8_t flags, uint32_t seq, const void* body,
                         size_t len) {
  std::byte buf[kDgramHeader + kSackBits / 8];
  len = std::min(len, sizeof buf - kDgramHeader);
  DgramHeader dh{type, flags, static_cast<uint16_t>(rank_), token_, seq};
  encode_header(dh, buf);
  if (len) std::memcpy(buf + kDgramHeader, body, len);
  transmit(peers_[static_cast<size_t>(peer)], buf, kDgramHeader + len,
           type == kAck || type == kCts);
}

void UdpFabric::transmit(const Peer& p, const std::byte* data, size_t len, bool ack) {
  if (faults_) faults_->send(p.addr, data, len, ack, now_s());
  else raw_sendto(p.addr, data, len);
}

void UdpFabric::raw_sendto(const sockaddr_in& to, const std::byte* data, size_t len) {
  ssize_t n;
  do {
    n = ::sendto(fd_, data, len, MSG_DONTWAIT | MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&to),
                 sizeof to);
  } while (n < 0 && errno == EINTR);
  // A full socket buffer or an unreachable route is a lost datagram: the
  // retransmission timer recovers it, so there is nothing to report here.
  if (n < 0) IL_LOG(trace, "udp: sendto failed: " << std::strerror(errno));
}

bool UdpFabric::send_datagram(int peer, const void* data, size_t len) {
  if (peer < 0 || peer >= size_) return false;
  const Peer& p = peers_[static_cast<size_t>(peer)];
  if (!p.addr_known) return false;
  transmit(p, static_cast<const std::byte*>(data), len, false);
  return true;
}

void UdpFabric::flush_before_close() {
  // send() said ok for queued frames, so push them out first; bounded, and a peer
  // silent for a second has most likely closed already (a lost final ack).
  const double deadline = now_s() + kCloseFlushS;
  // Deferred acks first: no reply will carry them now, and a peer still waiting for
  // them would otherwise hold its own close for a second.
  send_acks(true);
  for (;;) {
    const double now = now_s();
    bool pending = false;
    for (const Peer& p : peers_)
      if (p.life == Life::alive && !p.zrl && (!p.unacked.empty() || p.out.size() > p.out_head) &&
          now - p.last_heard < 1.0)
        pending = true;
    if (zrl_ && zrl_->lingering(now)) pending = true;  // a ZRLMPI node may resend DATA
    if (!pending || now >= deadline) return;
    if (faults_) faults_->release(now);
    receive_all(nullptr);
    service_timers(now);
    send_acks(true);
    epoll_event ev[4];
    epoll_wait(epoll_fd_, ev, 4, 2);
  }
}

void UdpFabric::watch_peer(int peer) {
  if (peer < 0 || peer >= size_ || peer == rank_) return;
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.watched || p.zrl || p.life != Life::alive) return;
  p.watched = true;
  // Counted from now: a peer we never heard from gets a full timeout to answer.
  p.last_heard = std::max(p.last_heard, now_s());
}

}  // namespace interlace::fabric::udp

namespace interlace::fabric {
std::unique_ptr<Fabric> make_udp_fabric(const FabricInit& init) {
  return std::make_unique<udp::UdpFabric>(init);
}
}  // namespace interlace::fabric
