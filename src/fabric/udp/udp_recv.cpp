// The event side of the udp fabric: datagrams in, delivery, acknowledgements,
// retransmission timers, the large-frame handshake's receiver half, liveness.
#include <arpa/inet.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "fabric/tcp/tcp_net.hpp"
#include "fabric/udp/udp_fabric.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::udp {
namespace {

constexpr int kBatch = 16;
constexpr int kMaxPerRound = 512;  // datagrams per progress call, so timers still run

uint64_t get64(const std::byte* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

bool after(uint32_t a, uint32_t b) { return static_cast<int32_t>(a - b) > 0; }

}  // namespace

int UdpFabric::progress(FrameSink& sink) {
  const double now = now_s();
  ++round_;
  if (faults_) faults_->release(now);
  int n = self_q_.empty() ? 0 : deliver_self(&sink);
  n += receive_all(&sink);
  service_timers(now);
  send_acks(false);
  if (zrl_) n += zrl_->progress(sink, now);
  report_lost(sink);
  return n;
}

void UdpFabric::check_peers(FrameSink& sink) {
  service_timers(now_s());
  // Frames a lost peer sent may still wait in the socket: progress() delivers
  // them first and reports the loss after.
  if (!socket_readable()) report_lost(sink);
}

bool UdpFabric::socket_readable() const {
  pollfd pf{fd_, POLLIN, 0};
  return poll(&pf, 1, 0) > 0 && (pf.revents & POLLIN);
}

void UdpFabric::wait(double timeout_s) {
  // Nothing to send, so no reply will carry a deferred ack: it goes now.
  send_acks(true);
  if (reports_pending_ > 0 || !self_q_.empty()) return;
  const double now = now_s();
  double until = timeout_s < 0 ? -1 : now + timeout_s;
  const double next = next_deadline(now);
  if (next >= 0 && (until < 0 || next < until)) until = next;
  wait_events(until < 0 ? -1 : static_cast<int>(std::ceil(std::max(0.0, until - now) * 1000.0)));
}

void UdpFabric::wait_events(int ms) {
  epoll_event ev[4];
  const int n = epoll_wait(epoll_fd_, ev, 4, ms);
  for (int i = 0; i < n; ++i) {
    if (ev[i].data.fd == wake_fd_) {
      uint64_t count;
      ssize_t r = ::read(wake_fd_, &count, sizeof count);
      (void)r;
    }
  }
}

// The timers and queues are read here, with the fabric held; sleep_armed() uses only the
// fds and the deadline computed now.
bool UdpFabric::arm_sleep() {
  send_acks(true);
  if (reports_pending_ > 0 || !self_q_.empty()) return false;
  const double now = now_s();
  const double next = next_deadline(now);
  armed_ms_ = next < 0 ? -1 : static_cast<int>(std::ceil(std::max(0.0, next - now) * 1000.0));
  if (armed_ms_ == 0) return false;
  armed_.store(true, std::memory_order_seq_cst);
  return true;
}

void UdpFabric::sleep_armed(double timeout_s) {
  int ms = timeout_s < 0 ? -1 : static_cast<int>(std::ceil(timeout_s * 1000.0));
  if (armed_ms_ >= 0 && (ms < 0 || armed_ms_ < ms)) ms = armed_ms_;
  wait_events(ms);
}

void UdpFabric::wake() {
  uint64_t one = 1;
  ssize_t r = ::write(wake_fd_, &one, sizeof one);
  (void)r;
}

double UdpFabric::probe_timeout(const Peer& p) const {
  return std::max(2 * (p.srtt > 0 ? p.srtt : kInitialRtoS), 2e-4);
}

double UdpFabric::next_deadline(double now) const {
  double best = -1;
  auto take = [&](double t) {
    if (best < 0 || t < best) best = t;
  };
  if (faults_ && faults_->next_due() >= 0) take(faults_->next_due());
  if (zrl_ && zrl_->next_deadline() >= 0) take(zrl_->next_deadline());
  const double ka = opt_.peer_timeout_s / 4;
  for (const Peer& p : peers_) {
    if (p.life != Life::alive || p.zrl) continue;
    if (opt_.mode == Mode::gbn && !p.unacked.empty()) take(p.unacked.front().due);
    else
      for (const OutDgram& d : p.unacked)
        if (!d.sacked) take(d.due);
    if (opt_.mode == Mode::sr && !p.unacked.empty() && p.out.size() == p.out_head &&
        !p.unacked.back().sacked && p.unacked.back().seq != p.probed)
      take(p.unacked.back().sent_at + probe_timeout(p));
    const bool blocked = !p.marks.empty() && !p.marks.front().granted &&
                         p.marks.front().off == p.out_off;
    if (blocked) take(p.marks.front().req_due);
    if (p.watched || !p.unacked.empty()) {
      take(p.last_heard + opt_.peer_timeout_s);
      take(std::max(p.last_heard, p.last_ping) + ka);
    }
  }
  (void)now;
  return best;
}

int UdpFabric::receive_all(FrameSink* sink) {
  int delivered = 0, seen = 0;
  mmsghdr msgs[kBatch];
  iovec iov[kBatch];
  sockaddr_in from[kBatch];
  while (seen < kMaxPerRound) {
    for (int i = 0; i < kBatch; ++i) {
      iov[i] = {rbuf_.data() + static_cast<size_t>(i) * 65536, 65536};
      msgs[i] = {};
      msgs[i].msg_hdr.msg_iov = &iov[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
      msgs[i].msg_hdr.msg_name = &from[i];
      msgs[i].msg_hdr.msg_namelen = sizeof from[i];
    }
    const int n = recvmmsg(fd_, msgs, kBatch, MSG_DONTWAIT, nullptr);
    if (n <= 0) break;
    for (int i = 0; i < n; ++i) {
      if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
        reject(from[i], "oversized datagram (truncated)");
        continue;
      }
      delivered += on_datagram(from[i], static_cast<const std::byte*>(iov[i].iov_base),
                               msgs[i].msg_len, sink);
    }
    seen += n;
    if (n < kBatch) break;
  }
  return delivered;
}

void UdpFabric::reject(const sockaddr_in& from, const std::string& why) {
  // Rate-limited: a flood of strangers must not flood the log as well.
  ++rejected_;
  const double now = now_s();
  if (now - last_reject_log_ < 1.0) {
    ++rejects_suppressed_;
    return;
  }
  IL_LOG(warn, "udp: rank " << rank_ << " dropped a datagram from "
                            << tcp::format_sockaddr(reinterpret_cast<const sockaddr*>(&from))
                            << ": " << why
                            << (rejects_suppressed_ ? " (and " + std::to_string(rejects_suppressed_) +
                                                          " more dropped since the last report)"
                                                    : std::string()));
  last_reject_log_ = now;
  rejects_suppressed_ = 0;
}

int UdpFabric::on_datagram(const sockaddr_in& from, const std::byte* data, size_t len,
                           FrameSink* sink) {
  int peer = peer_of(from);
  if (peer >= 0 && peers_[static_cast<size_t>(peer)].zrl) {
    zrl_->on_datagram(peer, data, len);
    return 0;
  }
  DgramHeader h;
  if (std::string bad = decode_header(data, len, &h); !bad.empty()) {
    reject(from, bad);
    return 0;
  }
  if (h.token != token_) {
    reject(from, "wrong job token (the sender does not know this job's secret)");
    return 0;
  }
  if (h.src >= size_ || h.src == rank_) {
    reject(from, "claims rank " + std::to_string(h.src) + ", not a peer in a job of " +
                     std::to_string(size_));
    return 0;
  }
  if (peer < 0 && resolve_peer(h.src, 0)) peer = peer_of(from);
  if (peer != h.src) {
    const Peer& claimed = peers_[h.src];
    reject(from, "claims rank " + std::to_string(h.src) + ", which is at " +
                     (claimed.addr_known ? claimed.addr_text : std::string("an unpublished address")));
    return 0;
  }
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.life != Life::alive) return 0;
  const double now = now_s();
  p.last_heard = now;
  p.watched = true;
  const std::byte* body = data + kDgramHeader;
  const size_t blen = len - kDgramHeader;
  switch (h.type) {
    case kData:
      if (h.flags & kFlagAck) {
        if (blen < kPiggyAck) {
          reject(from, "data datagram flagged with an ack but only " + std::to_string(blen) +
                           " body bytes");
          return 0;
        }
        uint32_t cum = 0;
        for (size_t i = 0; i < kPiggyAck; ++i) cum |= std::to_integer<uint32_t>(body[i]) << (8 * i);
        // Data first: the data we may send when the ack opens the window then
        // carries the acknowledgement of this datagram too.
        const int n = on_data(peer, h, body + kPiggyAck, blen - kPiggyAck, sink, now);
        if (p.life == Life::alive) on_ack(peer, DgramHeader{kAck, 0, h.src, h.token, cum}, nullptr, 0, now);
        return n;
      }
      return on_data(peer, h, body, blen, sink, now);
    case kAck: on_ack(peer, h, body, blen, now); break;
    case kReq: on_req(peer, h, body, blen); break;
    case kCts: on_cts(peer, h, now); break;
    case kPing: p.ack_pending = true; break;
    default: break;
  }
  return 0;
}

int UdpFabric::on_data(int peer, const DgramHeader& h, const std::byte* body, size_t len,
                       FrameSink* sink, double now) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  // Every data datagram is answered, duplicates included: a lost final ack is
  // repaired when the sender retransmits. Duplicates and arrivals past a hole are
  // answered at once; an in-order one may wait for a reply to carry its ack.
  const int32_t d = static_cast<int32_t>(h.seq - p.expected);
  if (d != 0) p.ack_pending = true;
  if (d < 0) return 0;
  if (d == 0) {
    // Deferred only for the first datagram since the last ack (a second one makes
    // it due this round, as every ack was before), never when a hole just closed
    // or the window is one datagram, and only where we sent data to this peer
    // moments ago: otherwise no reply is likely to come soon.
    ++p.acks_owed;
    if (opt_.piggyback && p.acks_owed == 1 && p.ahead.empty() && opt_.window > 1 &&
        p.last_data_out >= 0 && now - p.last_data_out < kPiggyWindowS) {
      if (!p.ack_deferred) {
        p.ack_deferred = true;
        p.ack_round = round_;
      }
    } else {
      p.ack_pending = true;
    }
    p.in.insert(p.in.end(), body, body + len);
    ++p.expected;
    while (!p.ahead.empty() && p.ahead.begin()->first == p.expected) {
      auto& v = p.ahead.begin()->second;
      p.in.insert(p.in.end(), v.begin(), v.end());
      p.ahead.erase(p.ahead.begin());
      ++p.expected;
    }
    return deliver(peer, sink);
  }
  if (opt_.mode == Mode::sr && static_cast<uint32_t>(d) < kRecvAhead)
    p.ahead.try_emplace(h.seq, body, body + len);
  return 0;
}

int UdpFabric::deliver(int peer, FrameSink* sink) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  int delivered = 0;
  while (p.life == Life::alive && p.in.size() - p.in_head >= sizeof(FrameHeader)) {
    FrameHeader h;
    std::memcpy(&h, p.in.data() + p.in_head, sizeof h);
    if (std::string bad = validate_header(h, static_cast<uint32_t>(rank_),
                                          static_cast<uint32_t>(size_), kMaxPayload,
                                          !config_.routes_dir.empty());
        !bad.empty()) {
      IL_LOG(error, "udp: rank " << peer << " (" << p.addr_text << ") sent a bad frame: " << bad);
      mark_lost(peer, "protocol error from rank " + std::to_string(peer) + ": " + bad);
      return delivered;
    }
    const size_t total = sizeof h + h.len;
    if (p.in.size() - p.in_head < total) break;
    const size_t at = p.in_head;
    p.in_head += total;
    if (sink) sink->on_frame(h, p.in.data() + at + sizeof h);
    ++delivered;
    if (needs_handshake(total)) release_reservation(peer);
  }
  if (p.in_head == p.in.size()) {
    p.in.clear();
    p.in_head = 0;
  } else if (p.in_head >= (64u << 10) && p.in_head * 2 >= p.in.size()) {
    p.in.erase(p.in.begin(), p.in.begin() + static_cast<std::ptrdiff_t>(p.in_head));
    p.in_head = 0;
  }
  return delivered;
}

void UdpFabric::on_ack(int peer, const DgramHeader& h, const std::byte* body, size_t len,
                       double now) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  const uint32_t cum = h.seq;
  // One RTT sample per ack, from the newest datagram it newly covers: older ones
  // waited behind a hole, and (Karn) a resent one's ack is ambiguous.
  double sample = -1;
  auto consider = [&](const OutDgram& d) { sample = d.sends == 1 && !d.sacked ? now - d.sent_at : -1; };
  while (!p.unacked.empty() && after(cum, p.unacked.front().seq)) {
    OutDgram& d = p.unacked.front();
    consider(d);
    if (d.sacked) --p.sacked;
    p.unacked_bytes -= d.bytes.size();
    p.unacked.pop_front();
  }
  if (opt_.mode == Mode::sr && (h.flags & kFlagSack) && len >= 8 && !p.unacked.empty()) {
    const size_t nbits = std::min<size_t>(len / 8 * 64, kSackBits);
    uint64_t words[kSackBits / 64] = {};
    std::memcpy(words, body, nbits / 8);
    uint32_t highest = cum;
    for (OutDgram& d : p.unacked) {
      const uint32_t off = d.seq - cum - 1;
      if (off < nbits && (words[off / 64] >> (off % 64) & 1)) {
        if (!d.sacked) {
          consider(d);
          ++p.sacked;
        }
        d.sacked = true;
        highest = d.seq;
      }
    }
    // Fast retransmit: a later datagram arrived and this one, sent more than a round
    // trip ago (with a quarter to spare for reordering), did not: most likely lost.
    // The same guard keeps acks sent before a resent datagram arrived from
    // resending it again.
    const double guard = 1.25 * (p.srtt > 0 ? p.srtt : kInitialRtoS);
    for (OutDgram& d : p.unacked) {
      if (!after(highest, d.seq)) break;
      if (!d.sacked && now - d.sent_at > guard) retransmit(p, d, now, false);
    }
  }
  if (sample >= 0) {
    if (p.srtt < 0) {
      p.srtt = sample;
      p.rttvar = sample / 2;
    } else {
      p.rttvar = 0.75 * p.rttvar + 0.25 * std::fabs(p.srtt - sample);
      p.srtt = 0.875 * p.srtt + 0.125 * sample;
    }
    p.rto = std::clamp(p.srtt + 4 * p.rttvar, kMinRtoS, kMaxRtoS);
  }
  pump_out(peer, now);
}

void UdpFabric::on_req(int peer, const DgramHeader& h, const std::byte* body, size_t len) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (len < 8) return;
  const uint64_t bytes = get64(body);
  if (after(p.next_grant, h.seq)) {  // granted before: our clear-to-send was lost
    send_ctl(peer, kCts, kFlagGranted, h.seq, nullptr, 0);
    return;
  }
  if (h.seq != p.next_grant) return;
  if (bytes > kMaxPayload + sizeof(FrameHeader)) {
    mark_lost(peer, "rank " + std::to_string(peer) + " asked to send a frame of " +
                        std::to_string(bytes) + " bytes (at most " + std::to_string(kMaxPayload) + ")");
    return;
  }
  if (reserved_total_ == 0 || reserved_total_ + bytes <= kRecvBudget) {
    p.reserved.push_back(bytes);
    reserved_total_ += bytes;
    ++p.next_grant;
    p.req_waiting = false;
    send_ctl(peer, kCts, kFlagGranted, h.seq, nullptr, 0);
  } else {
    // Not yet: the answer keeps the sender from taking our silence for death.
    p.req_waiting = true;
    p.req_waiting_bytes = bytes;
    send_ctl(peer, kCts, 0, h.seq, nullptr, 0);
  }
}

void UdpFabric::on_cts(int peer, const DgramHeader& h, double now) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (!(h.flags & kFlagGranted) || p.marks.empty()) return;
  LargeMark& m = p.marks.front();
  if (m.id != h.seq || m.granted) return;
  m.granted = true;
  pump_out(peer, now);
}

void UdpFabric::release_reservation(int peer) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.reserved.empty()) return;
  reserved_total_ -= p.reserved.front();
  p.reserved.pop_front();
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& q = peers_[i];
    if (!q.req_waiting || q.life != Life::alive) continue;
    if (reserved_total_ != 0 && reserved_total_ + q.req_waiting_bytes > kRecvBudget) continue;
    q.reserved.push_back(q.req_waiting_bytes);
    reserved_total_ += q.req_waiting_bytes;
    q.req_waiting = false;
    send_ctl(static_cast<int>(i), kCts, kFlagGranted, q.next_grant++, nullptr, 0);
  }
}

void UdpFabric::ack_sent(Peer& p) {
  p.ack_pending = false;
  p.ack_deferred = false;
  p.acks_owed = 0;
}

// A deferred ack waits one progress round at most: the round after the one that
// received the datagram sends it when no data has carried it by then.
void UdpFabric::send_acks(bool deferred_too) {
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    const bool due = p.ack_pending || (p.ack_deferred && (deferred_too || p.ack_round != round_));
    if (!due) continue;
    ack_sent(p);
    if (p.life != Life::alive) continue;
    uint64_t words[kSackBits / 64] = {};
    size_t used = 0;  // words up to the last one with a bit set
    for (const auto& [seq, bytes] : p.ahead) {
      const uint32_t off = seq - p.expected - 1;
      if (off >= kSackBits) break;
      words[off / 64] |= uint64_t{1} << (off % 64);
      used = off / 64 + 1;
    }
    ++standalone_acks_;
    send_ctl(static_cast<int>(i), kAck, used ? kFlagSack : 0, p.expected, words, used * 8);
  }
}

void UdpFabric::retransmit(Peer& p, OutDgram& d, double now, bool timed_out) {
  transmit(p, d.bytes.data(), d.bytes.size(), false);
  ++d.sends;
  ++retransmits_;
  if (timed_out) ++d.timeouts;
  d.sent_at = now;
  d.due = now + rto_now(p, d.timeouts);
}

void UdpFabric::service_timers(double now) {
  const double ka = opt_.peer_timeout_s / 4;
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    if (p.life != Life::alive || p.zrl || static_cast<int>(i) == rank_) continue;
    if (!p.unacked.empty()) {
      if (opt_.mode == Mode::gbn) {
        // Go-back-N: the base's timer resends the whole window; only the base backs off.
        if (p.unacked.front().due <= now) {
          for (OutDgram& d : p.unacked) retransmit(p, d, now, &d == &p.unacked.front());
        }
      } else {
        for (OutDgram& d : p.unacked)
          if (!d.sacked && d.due <= now) retransmit(p, d, now, true);
      }
    }
    if (p.out.size() > p.out_head) pump_out(static_cast<int>(i), now);
    // Tail loss probe (sr): when nothing new follows, a lost datagram at the end of
    // a burst has no later ones to reveal it, and would wait for its timer. Resending
    // the newest one after two round trips draws an ack that shows the holes.
    if (opt_.mode == Mode::sr && !p.unacked.empty() && p.out.size() == p.out_head) {
      OutDgram& tail = p.unacked.back();
      const double pto = probe_timeout(p);
      if (!tail.sacked && tail.seq != p.probed && now - tail.sent_at > pto && now < tail.due) {
        p.probed = tail.seq;
        retransmit(p, tail, now, false);
      }
    }
    if (!p.watched && p.unacked.empty()) continue;
    const double silent = now - p.last_heard;
    if (silent > opt_.peer_timeout_s) {
      mark_lost(static_cast<int>(i),
                "no datagram from rank " + std::to_string(i) + " (" + p.addr_text + ") for " +
                    std::to_string(static_cast<int>(silent)) + " s (INTERLACE_UDP_PEER_TIMEOUT=" +
                    std::to_string(opt_.peer_timeout_s) + ")" +
                    (p.unacked.empty() ? std::string()
                                       : ", " + std::to_string(p.unacked.size()) +
                                             " datagrams unacknowledged"));
      continue;
    }
    if (silent > ka && now - p.last_ping > ka && p.addr_known) {
      p.last_ping = now;
      send_ctl(static_cast<int>(i), kPing, 0, 0, nullptr, 0);
    }
  }
}

void UdpFabric::mark_lost(int peer, const std::string& why) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.life == Life::lost) return;
  p.life = Life::lost;
  p.why = why;
  p.report_pending = true;
  ++reports_pending_;
  p.out.clear();
  p.out_head = 0;
  p.marks.clear();
  p.unacked.clear();
  p.unacked_bytes = 0;
  p.sacked = 0;
  p.ahead.clear();
  for (uint64_t b : p.reserved) reserved_total_ -= b;
  p.reserved.clear();
  p.req_waiting = false;
  IL_LOG(info, "udp: rank " << rank_ << " lost rank " << peer << ": " << why);
}

void UdpFabric::report_lost(FrameSink& sink) {
  if (reports_pending_ == 0) return;
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    if (!p.report_pending) continue;
    p.report_pending = false;
    --reports_pending_;
    sink.on_peer_lost(static_cast<int>(i), p.why);
  }
}

size_t UdpFabric::in_flight() const noexcept {
  size_t n = 0;
  for (const Peer& p : peers_) n += p.unacked.size() + (p.out.size() - p.out_head);
  return n;
}

int UdpFabric::deliver_self(FrameSink* sink) {
  int n = 0;
  // Frames queued by on_frame callbacks below wait for the next round.
  size_t count = self_q_.size();
  while (count-- > 0) {
    std::vector<std::byte> f = std::move(self_q_.front());
    self_q_.pop_front();
    self_bytes_ -= f.size();
    FrameHeader h;
    std::memcpy(&h, f.data(), sizeof h);
    if (sink) sink->on_frame(h, f.data() + sizeof h);
    ++n;
  }
  return n;
}

}  // namespace interlace::fabric::udp
