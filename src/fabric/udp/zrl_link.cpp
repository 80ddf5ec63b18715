// The ZRLMPI wire mode behind ZrlLink (docs/zrlmpi.md). Per ZRLMPI peer there is one
// outgoing handshake (messages go one at a time, in order, as ZRLMPI's synchronous
// sends do) and one incoming one. ZRLMPI's packets carry no sequence number, so the
// states below are judged from packet types alone, the way ZRLMPI's library does.
#include <algorithm>
#include <cstring>
#include <deque>
#include <vector>

#include "fabric/udp/zrl_header.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/datatype.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::udp {

namespace {

// p2p charges every eager message len + 128 bytes of credit (docs/wire.md); a ZRLMPI
// node keeps no books, so the link hands the charge back when the node acknowledges.
constexpr uint64_t kEagerCharge = 128;
// The world communicator's id (groups::kWorldId): ZRLMPI knows only MPI_COMM_WORLD.
constexpr uint64_t kWorldComm = 1;
// ZRLMPI waits 100 ms, then 1.1 s, 2.1 s and then forever; we double from 100 ms and
// keep retrying every 1.6 s at most, so a lost packet never stops a job.
constexpr double kMaxBackoffS = 1.6;
// A DATA message larger than this is refused with an ERROR packet (its size field
// would let a stranger make us allocate up to 16 GiB).
constexpr size_t kMaxMessageBytes = size_t{1} << 30;
// ZRLMPI's sender resends DATA 0.1, 1.1 and 2.1 s after the previous try (3.3 s in
// all), then waits forever: how long a closing rank keeps re-acknowledging.
constexpr double kLingerS = 3.4;
// How long we wait for an ACK before resending DATA on our own: longer than the
// node's longest finite DATA timeout (2.1 s). Until then a node that missed part of
// our DATA times out, asks again with CLEAR_TO_SEND and gets DATA at once while it
// listens afresh: ZRLMPI's receiver appends whatever arrives to a partial message,
// so a resend that overtook its timeout would be stitched onto the old bytes.
constexpr double kAckWaitS = 2.5;

struct RtsWire {  // p2p's rendezvous request payload (docs/wire.md, kind 2)
  uint64_t addr, bytes, cookie;
};

struct OutMsg {
  std::vector<std::byte> copy;  // eager frames: our copy of the payload
  const std::byte* data = nullptr;
  size_t bytes = 0;
  bool eager = false;
  uint64_t cookie = 0;  // rendezvous: the sender's cookie, returned in a FIN frame
};

struct Event {  // a frame the link hands to the sink on the peer's behalf
  int peer;
  uint8_t kind;
  uint64_t aux;
};

struct Delivery {
  int peer;
  uint8_t call;
  std::vector<std::byte> data;
};

uint64_t fnv1a(const std::vector<std::byte>& d) {
  uint64_t h = 1469598103934665603ull;
  for (std::byte b : d) h = (h ^ static_cast<uint8_t>(b)) * 1099511628211ull;
  return h;
}

bool is_send_call(uint8_t c) { return c == kZrlSendInt || c == kZrlSendFloat; }
bool is_recv_call(uint8_t c) { return c == kZrlRecvInt || c == kZrlRecvFloat; }

class Link final : public ZrlLink {
 public:
  Link(int self, int size, std::vector<bool> zrl, ZrlIo& io, const Config& cfg)
      : self_(self), zrl_(std::move(zrl)), io_(io), peers_(static_cast<size_t>(size)),
        give_up_s_(cfg.connect_timeout_s > 30 ? cfg.connect_timeout_s : 30), now_(interlace::now_s()) {
    zrl_.resize(static_cast<size_t>(size), false);
  }

  Errc send(int peer, const FrameHeader& h, const void* payload, size_t len) override;
  void on_datagram(int peer, const std::byte* data, size_t len) override;
  int progress(FrameSink& sink, double now_s) override;
  double next_deadline() const override;
  bool lingering(double now) const override { return now < linger_until_; }

 private:
  struct Peer {
    std::deque<OutMsg> out;
    enum class Out : uint8_t { idle, wait_cts, wait_ack } ost = Out::idle;
    double o_due = -1, o_backoff = kZrlTimeoutS;
    int o_tries = 0;
    bool early_cts = false;  // a CLEAR_TO_SEND came while we had nothing to send
    bool lost = false;       // reported lost: sends fail
    double last_heard = 0;   // time of its last valid packet

    enum class In : uint8_t { idle, wait_data, reassemble } ist = In::idle;
    uint8_t in_call = kZrlSendInt;
    bool solicited = false;  // a SEND_REQUEST began it; else DATA came while idle
    std::vector<std::byte> buf;
    size_t got = 0;
    double i_due = -1, i_backoff = kZrlTimeoutS, i_since = 0;
    bool have_last = false;  // the last message delivered, to know its duplicate
    uint64_t last_hash = 0;
    size_t last_bytes = 0;
    uint8_t last_call = 0;
  };

  void packet(int peer, uint32_t words, uint8_t call, uint8_t type) {
    ZrlHeader h{static_cast<uint32_t>(peer), static_cast<uint32_t>(self_), words, call, type};
    std::byte b[kZrlHeaderBytes];
    zrl_encode(h, b);
    io_.send_datagram(peer, b, sizeof b);  // a refused datagram is a loss: timers retry
  }
  void send_data(int peer, const OutMsg& m);
  void start_next(int peer);
  void begin_data(int peer, Peer& p, const ZrlHeader& h, const std::byte* data, size_t len);
  void add_bytes(int peer, Peer& p, const std::byte* data, size_t len);
  void complete_in(int peer, Peer& p);
  Errc refuse(int peer, const std::string& why) {
    IL_LOG(error, "zrlmpi: cannot send to rank " << peer << " (a ZRLMPI node): " << why);
    return Errc::unsupported;
  }

  int self_;
  std::vector<bool> zrl_;
  ZrlIo& io_;
  std::vector<Peer> peers_;
  double give_up_s_;
  double now_;
  double linger_until_ = -1;
  std::deque<Delivery> deliveries_;
  std::deque<Event> events_;
};

Errc Link::send(int peer, const FrameHeader& h, const void* payload, size_t len) {
  if (peer < 0 || static_cast<size_t>(peer) >= peers_.size() || !zrl_[peer])
    return refuse(peer, "it is not listed in INTERLACE_ZRLMPI_RANKS");
  OutMsg m;
  switch (h.kind) {
    case kKindP2pCredit:
      return Errc::ok;  // credit we return to a node: it keeps no books
    case kKindP2pEager:
      m.eager = true;
      m.copy.assign(static_cast<const std::byte*>(payload), static_cast<const std::byte*>(payload) + len);
      m.bytes = len;
      break;
    case kKindP2pRts: {
      if (len != sizeof(RtsWire)) return refuse(peer, "malformed rendezvous request");
      RtsWire r;
      std::memcpy(&r, payload, sizeof r);
      // The sender's request stays pending until the FIN we emit after the ACK,
      // so its buffer stays valid and is read in place.
      m.data = reinterpret_cast<const std::byte*>(r.addr);
      m.bytes = r.bytes;
      m.cookie = r.cookie;
      break;
    }
    default:
      return refuse(peer, "frame kind " + std::to_string(h.kind) +
                              " has no ZRLMPI equivalent (only MPI_Send/MPI_Recv reach it)");
  }
  if (h.tag < 0)
    return refuse(peer, "internal traffic (tag " + std::to_string(h.tag) +
                            ": a collective or communicator creation) cannot reach it; expand "
                            "collectives with `interlace transpile`");
  const auto dt = static_cast<Datatype>(h.dtype);
  if (h.dtype != 0 && dt != Datatype::bytes && datatype_size(dt) != 4)
    return refuse(peer, "datatype " + std::string(datatype_name(dt)) +
                            " is not a 4-byte type (ZRLMPI counts 32-bit words)");
  if (m.bytes % 4 != 0)
    return refuse(peer, "a message of " + std::to_string(m.bytes) +
                            " bytes is not a whole number of 4-byte words (ZRLMPI counts 32-bit words)");
  if (m.bytes / 4 > UINT32_MAX) return refuse(peer, "a message of " + std::to_string(m.bytes) + " bytes is too large");
  if (m.eager) m.data = m.copy.data();
  Peer& p = peers_[peer];
  if (p.lost) return Errc::lost_peer;
  p.out.push_back(std::move(m));
  if (p.ost == Peer::Out::idle) start_next(peer);
  return Errc::ok;
}

void Link::send_data(int peer, const OutMsg& m) {
  // ZRLMPI's DATA: one datagram with the header and up to 1384 bytes, then
  // headerless continuations of up to 1416 bytes, sent back to back.
  std::vector<std::byte> d(kZrlMaxDatagram);
  ZrlHeader h{static_cast<uint32_t>(peer), static_cast<uint32_t>(self_),
              static_cast<uint32_t>(m.bytes / 4), kZrlSendInt, kZrlData};
  zrl_encode(h, d.data());
  size_t first = std::min(m.bytes, kZrlFirstPayload);
  if (first) std::memcpy(d.data() + kZrlHeaderBytes, m.data, first);
  io_.send_datagram(peer, d.data(), kZrlHeaderBytes + first);
  for (size_t off = first; off < m.bytes; off += kZrlMaxDatagram)
    io_.send_datagram(peer, m.data + off, std::min(kZrlMaxDatagram, m.bytes - off));
}

void Link::start_next(int peer) {
  Peer& p = peers_[peer];
  p.ost = Peer::Out::idle;
  if (p.out.empty()) return;
  packet(peer, 0, kZrlSendInt, kZrlSendRequest);
  if (p.early_cts) {
    // The node waits for DATA already (it answered a stale request of ours; its
    // library then waits for DATA forever): the request above is only a fallback.
    p.early_cts = false;
    send_data(peer, p.out.front());
    p.ost = Peer::Out::wait_ack;
  } else {
    p.ost = Peer::Out::wait_cts;
  }
  p.o_backoff = kZrlTimeoutS;
  p.o_due = now_ + (p.ost == Peer::Out::wait_ack ? kAckWaitS : p.o_backoff);
  p.o_tries = 0;
}

void Link::on_datagram(int peer, const std::byte* data, size_t len) {
  if (peer < 0 || static_cast<size_t>(peer) >= peers_.size() || !zrl_[peer]) {
    IL_LOG(error, "zrlmpi: dropping datagram from rank " << peer << ": not a ZRLMPI node");
    return;
  }
  Peer& p = peers_[peer];
  ZrlHeader h;
  std::string fault = zrl_decode(data, len, &h);
  if (fault.empty()) fault = zrl_check(h, static_cast<uint32_t>(self_), static_cast<uint32_t>(peer));
  // Continuations carry no header; one whose bytes happen to look like a header is
  // still data unless the header is entirely valid (ZRLMPI judges the same way).
  if (!fault.empty() && p.ist == Peer::In::reassemble) return add_bytes(peer, p, data, len);
  if (fault.empty() && h.type != kZrlError) {
    const bool want_send = h.type == kZrlSendRequest || h.type == kZrlData;
    if (want_send ? !is_send_call(h.call) : !is_recv_call(h.call))
      fault = std::string(zrl_type_name(h.type)) + " with call " + zrl_call_name(h.call) +
              " (" + std::to_string(h.call) + ")";
  }
  if (!fault.empty()) {
    IL_LOG(error, "zrlmpi: dropping packet from rank " << peer << " (ZRLMPI node): " << fault);
    return;
  }
  p.last_heard = now_;
  switch (h.type) {
    case kZrlSendRequest:
      if (p.ist == Peer::In::idle) {
        p.ist = Peer::In::wait_data;
        p.in_call = h.call;
        p.solicited = true;
        p.i_backoff = kZrlTimeoutS;
        p.i_since = now_;
        p.i_due = now_ + p.i_backoff;
      }
      // A repeated request (our CLEAR_TO_SEND was lost or slow) gets another one.
      packet(peer, 0, static_cast<uint8_t>(p.in_call + 1), kZrlClearToSend);
      return;
    case kZrlClearToSend:
      if (p.ost == Peer::Out::wait_cts || p.ost == Peer::Out::wait_ack) {
        // In wait_ack the node asks again: it timed out waiting for our DATA.
        send_data(peer, p.out.front());
        p.ost = Peer::Out::wait_ack;
        p.o_due = now_ + kAckWaitS;
      } else {
        p.early_cts = true;
      }
      return;
    case kZrlData:
      return begin_data(peer, p, h, data, len);
    case kZrlAck:
      if (p.ost != Peer::Out::wait_ack) {
        IL_LOG(debug, "zrlmpi: stale ACK from rank " << peer);
        return;
      }
      {
        OutMsg& m = p.out.front();
        if (m.eager) events_.push_back({peer, kKindP2pCredit, m.bytes + kEagerCharge});
        else events_.push_back({peer, kKindP2pFin, m.cookie});
        p.out.pop_front();
      }
      start_next(peer);
      return;
    case kZrlError:
      IL_LOG(error, "zrlmpi: rank " << peer << " (ZRLMPI node) sent an ERROR packet (call "
                                    << zrl_call_name(h.call) << ", " << len - kZrlHeaderBytes
                                    << " bytes after the header)");
      return;
  }
}

void Link::begin_data(int peer, Peer& p, const ZrlHeader& h, const std::byte* data, size_t len) {
  const uint64_t bytes = uint64_t{h.words} * 4;
  if (bytes > kMaxMessageBytes) {
    IL_LOG(error, "zrlmpi: refusing DATA of " << h.words << " words from rank " << peer
                                              << " (ZRLMPI node): larger than " << kMaxMessageBytes << " bytes");
    packet(peer, 0, static_cast<uint8_t>(h.call + 1), kZrlError);
    p.ist = Peer::In::idle;
    return;
  }
  // DATA while idle: no request since the last message, so most likely the node
  // resends a message whose ACK was lost; complete_in decides once it is whole.
  if (p.ist == Peer::In::idle) {
    p.solicited = false;
    p.i_since = now_;
  }
  p.ist = Peer::In::reassemble;  // a DATA header during reassembly restarts it (a resend)
  p.in_call = h.call;
  p.buf.assign(bytes, std::byte{0});
  p.got = 0;
  p.i_backoff = kZrlTimeoutS;
  p.i_due = now_ + p.i_backoff;
  add_bytes(peer, p, data + kZrlHeaderBytes, len - kZrlHeaderBytes);
}

void Link::add_bytes(int peer, Peer& p, const std::byte* data, size_t len) {
  const size_t n = std::min(len, p.buf.size() - p.got);
  if (n) std::memcpy(p.buf.data() + p.got, data, n);
  p.got += n;
  if (p.got >= p.buf.size()) complete_in(peer, p);
}

void Link::complete_in(int peer, Peer& p) {
  p.ist = Peer::In::idle;
  p.i_due = -1;
  const uint64_t hash = fnv1a(p.buf);
  if (!p.solicited && p.have_last && p.last_bytes == p.buf.size() && p.last_hash == hash &&
      p.last_call == p.in_call) {
    // ZRLMPI's sender resends DATA until it sees an ACK and would hang if the last
    // one was lost; acknowledging the duplicate again ends that, without delivering.
    IL_LOG(info, "zrlmpi: rank " << peer << " repeated its last DATA (" << p.buf.size()
                                 << " bytes); acknowledged again, not delivered twice");
    packet(peer, 0, static_cast<uint8_t>(p.in_call + 1), kZrlAck);
    linger_until_ = interlace::now_s() + kLingerS;
    return;
  }
  p.have_last = true;
  p.last_hash = hash;
  p.last_bytes = p.buf.size();
  p.last_call = p.in_call;
  deliveries_.push_back({peer, p.in_call, std::move(p.buf)});
  p.buf.clear();
}

int Link::progress(FrameSink& sink, double now) {
  now_ = now;
  int n = 0;
  while (!deliveries_.empty()) {
    Delivery d = std::move(deliveries_.front());
    deliveries_.pop_front();
    FrameHeader f;
    f.kind = kKindP2pEager;
    f.flags = kFlagP2pAnyTag;
    f.dtype = static_cast<uint8_t>(d.call == kZrlSendFloat ? Datatype::float32 : Datatype::int32);
    f.src = static_cast<uint32_t>(d.peer);
    f.dst = static_cast<uint32_t>(self_);
    f.comm = kWorldComm;
    f.len = d.data.size();
    sink.on_frame(f, d.data.data());
    packet(d.peer, 0, static_cast<uint8_t>(d.call + 1), kZrlAck);
    linger_until_ = interlace::now_s() + kLingerS;
    ++n;
  }
  while (!events_.empty()) {
    Event e = events_.front();
    events_.pop_front();
    FrameHeader f;
    f.kind = e.kind;
    f.src = static_cast<uint32_t>(e.peer);
    f.dst = static_cast<uint32_t>(self_);
    f.comm = kWorldComm;
    f.aux = e.aux;
    sink.on_frame(f, nullptr);
    ++n;
  }
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    const int peer = static_cast<int>(i);
    if (p.ost == Peer::Out::wait_ack && now - p.last_heard > give_up_s_) {
      // The node took our request, then fell silent: most likely it exited after
      // its final ACK was lost (it does not linger). Fail instead of retrying forever.
      p.lost = true;
      p.ost = Peer::Out::idle;
      p.out.clear();
      sink.on_peer_lost(peer, "ZRLMPI node rank " + std::to_string(peer) + " sent nothing for " +
                                  std::to_string(static_cast<int>(give_up_s_)) +
                                  " s while our DATA waited for its ACK");
      continue;
    }
    if (p.ost != Peer::Out::idle && p.o_due >= 0 && now >= p.o_due) {
      // Resending DATA alone serves a node that waits for it; from the second
      // retry on the request goes first, for a node that never saw one.
      if (p.ost == Peer::Out::wait_cts || p.o_tries >= 1)
        packet(peer, 0, kZrlSendInt, kZrlSendRequest);
      if (p.ost == Peer::Out::wait_ack) send_data(peer, p.out.front());
      ++p.o_tries;
      p.o_backoff = std::min(p.o_backoff * 2, kMaxBackoffS);
      p.o_due = now + (p.ost == Peer::Out::wait_ack ? kAckWaitS : p.o_backoff);
    }
    if (p.ist != Peer::In::idle && p.i_due >= 0 && now >= p.i_due) {
      if (now - p.i_since > give_up_s_) {
        IL_LOG(warn, "zrlmpi: rank " << peer << " (ZRLMPI node) sent no complete DATA for "
                                     << give_up_s_ << " s; waiting for a new request");
        p.ist = Peer::In::idle;
        p.i_due = -1;
        continue;
      }
      // As ZRLMPI's receiver does: a node that lost our CLEAR_TO_SEND hears it again.
      packet(peer, 0, static_cast<uint8_t>(p.in_call + 1), kZrlClearToSend);
      p.i_backoff = std::min(p.i_backoff * 2, kMaxBackoffS);
      p.i_due = now + p.i_backoff;
    }
  }
  return n;
}

double Link::next_deadline() const {
  if (!deliveries_.empty() || !events_.empty()) return now_;
  double t = -1;
  for (const Peer& p : peers_) {
    if (p.ost != Peer::Out::idle && p.o_due >= 0 && (t < 0 || p.o_due < t)) t = p.o_due;
    if (p.ist != Peer::In::idle && p.i_due >= 0 && (t < 0 || p.i_due < t)) t = p.i_due;
  }
  return t;
}

}  // namespace

std::unique_ptr<ZrlLink> make_zrl_link(int self, int size, std::vector<bool> zrl_peers, ZrlIo& io,
                                       const Config& cfg) {
  return std::make_unique<Link>(self, size, std::move(zrl_peers), io, cfg);
}

bool is_zrl_header(const std::byte* data, size_t len) noexcept {
  if (len < 4) return false;
  for (size_t i = 0; i < 4; ++i)
    if (data[i] != std::byte{kZrlMarker}) return false;
  return true;
}

}  // namespace interlace::fabric::udp
