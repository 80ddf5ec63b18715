// The udp fabric: reliable, ordered frames over one UDP socket per rank (docs/udp.md).
// Each direction between two ranks is a byte stream of frames (48-byte header +
// payload) cut into datagrams of at most MTU - 42 bytes, numbered per peer, acked
// cumulatively (plus a selective bitmap in sr mode), retransmitted on timeout with
// exponential back-off, and delivered exactly once in order. Frames above
// kHandshakeBytes wait for the receiver's clear-to-send, which it grants only while
// its reassembly budget lasts, so a receiver's memory stays bounded; the sender's
// queue is bounded too (send() says would_block).
#pragma once
#include <atomic>
#include <netinet/in.h>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "fabric/udp/udp_faults.hpp"
#include "fabric/udp/udp_options.hpp"
#include "fabric/udp/udp_wire.hpp"
#include "fabric/udp/zrl_link.hpp"
#include "interlace/fabric/fabric.hpp"

namespace interlace::fabric::udp {

inline constexpr size_t kMaxPayload = 4ull << 20;
// Frames with more payload than this ask first (an eager 64 KiB message does not).
inline constexpr size_t kHandshakeBytes = 64 * 1024;
inline constexpr bool needs_handshake(size_t frame_bytes) {
  return frame_bytes > kHandshakeBytes + sizeof(FrameHeader);
}
inline constexpr size_t kRecvBudget = 16ull << 20;    // granted large frames, all peers
inline constexpr size_t kOutQueueBound = 4ull << 20;  // per peer, then would_block
inline constexpr double kMinRtoS = 0.001, kMaxRtoS = 1.0, kInitialRtoS = 0.05;
inline constexpr double kCloseFlushS = 5.0;
inline constexpr uint32_t kRecvAhead = kMaxWindow;    // sr: buffered beyond a hole
// sr: acks carry a bitmap of this many datagrams past the cumulative point, and a
// sender keeps sending past a hole (up to 4 windows, within the bitmap) while it is
// repaired; otherwise one loss per window stalls the link for a timeout.
inline constexpr uint32_t kSackBits = 256;
// An in-order datagram's ack waits for a reply to carry it only while data went to
// that peer this recently (a request-reply exchange); else it goes out at once.
inline constexpr double kPiggyWindowS = 0.0005;

// Sequence numbers wrap: compare them relative to each other (they are always
// within kRecvAhead of one another where compared).
struct SeqLess {
  bool operator()(uint32_t a, uint32_t b) const noexcept { return static_cast<int32_t>(a - b) < 0; }
};

class UdpFabric final : public Fabric, private ZrlIo {
 public:
  explicit UdpFabric(const FabricInit& init);
  ~UdpFabric() override;

  const char* name() const noexcept override { return "udp"; }
  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return size_; }
  size_t max_payload() const noexcept override { return kMaxPayload; }

  Errc send(int peer, const FrameHeader& h, const void* payload, size_t len) override;
  int progress(FrameSink& sink) override;
  void wait(double timeout_s) override;
  void wake() override;
  void check_peers(FrameSink& sink) override;
  void watch_peer(int peer) override;
  bool sleeps_concurrently() const noexcept override { return true; }
  bool arm_sleep() override;
  void sleep_armed(double timeout_s) override;
  void disarm_sleep() override { armed_.store(false, std::memory_order_relaxed); }

  const std::string& endpoint() const noexcept { return endpoint_; }
  size_t payload_per_datagram() const noexcept { return dgram_payload_; }
  // For tests: datagrams awaiting acknowledgement plus stream bytes not yet cut,
  // over all peers; datagrams dropped as foreign or malformed.
  size_t in_flight() const noexcept;
  uint64_t rejected() const noexcept { return rejected_; }
  // Acks sent as datagrams of their own (not carried by data).
  uint64_t standalone_acks() const noexcept { return standalone_acks_; }

 private:
  enum class Life { alive, lost };
  struct OutDgram {
    uint32_t seq;
    std::vector<std::byte> bytes;  // header included
    double sent_at, due;
    int sends = 1;     // Karn: a resent datagram gives no RTT sample
    int timeouts = 0;  // its own timer fired this often: the back-off exponent
    bool sacked = false;
  };
  struct LargeMark {
    uint64_t off;  // stream offset where the frame starts
    uint64_t bytes;
    uint32_t id;
    bool granted = false;
    double req_due = 0;
    int reqs = 0;
  };
  struct Peer {
    Life life = Life::alive;
    bool zrl = false;
    bool addr_known = false;
    sockaddr_in addr{};
    std::string addr_text;
    // Sending: uncut stream bytes, then datagrams in flight.
    std::vector<std::byte> out;
    size_t out_head = 0;
    uint64_t out_off = 0;  // stream offset of out[out_head]
    std::deque<LargeMark> marks;
    uint32_t next_mark_id = 0;
    std::deque<OutDgram> unacked;
    size_t unacked_bytes = 0;
    size_t sacked = 0;  // of unacked
    uint32_t probed = UINT32_MAX;  // the datagram a tail loss probe last resent
    uint32_t next_seq = 0;
    double srtt = -1, rttvar = 0, rto = kInitialRtoS;
    // Receiving.
    uint32_t expected = 0;
    std::map<uint32_t, std::vector<std::byte>, SeqLess> ahead;  // sr: arrived past a hole
    std::vector<std::byte> in;
    size_t in_head = 0;
    bool ack_pending = false;   // send an ack at the end of this round
    bool ack_deferred = false;  // may ride on data until the next round or wait()
    uint64_t ack_round = 0;     // the progress round that deferred it
    uint32_t acks_owed = 0;     // in-order datagrams since the last ack sent
    double last_data_out = -1;
    uint32_t next_grant = 0;          // id of the next request to grant
    std::deque<uint64_t> reserved;    // granted large frames not yet delivered
    bool req_waiting = false;         // request next_grant arrived, budget was short
    uint64_t req_waiting_bytes = 0;
    // Liveness.
    bool watched = false;
    double last_heard = 0, last_ping = 0;
    std::string why;
    bool report_pending = false;
  };

  // udp_fabric.cpp: setup, addressing, the send path
  void open_socket();
  bool resolve_peer(int peer, double timeout_s);
  void enqueue(Peer& p, const void* data, size_t len);
  void pump_out(int peer, double now);
  void send_ctl(int peer, uint8_t type, uint8_t flags, uint32_t seq, const void* body, size_t len);
  void transmit(const Peer& p, const std::byte* data, size_t len, bool ack);
  void raw_sendto(const sockaddr_in& to, const std::byte* data, size_t len);
  bool send_datagram(int peer, const void* data, size_t len) override;  // ZrlIo
  void flush_before_close();
  // udp_recv.cpp: datagrams in, acks, retransmission, liveness
  int receive_all(FrameSink* sink);
  int on_datagram(const sockaddr_in& from, const std::byte* data, size_t len, FrameSink* sink);
  int on_data(int peer, const DgramHeader& h, const std::byte* body, size_t len, FrameSink* sink,
              double now);
  void on_ack(int peer, const DgramHeader& h, const std::byte* body, size_t len, double now);
  void on_req(int peer, const DgramHeader& h, const std::byte* body, size_t len);
  void on_cts(int peer, const DgramHeader& h, double now);
  int deliver(int peer, FrameSink* sink);
  void release_reservation(int peer);
  void send_acks(bool deferred_too);
  void ack_sent(Peer& p);
  void service_timers(double now);
  void retransmit(Peer& p, OutDgram& d, double now, bool timed_out);
  void mark_lost(int peer, const std::string& why);
  void report_lost(FrameSink& sink);
  int deliver_self(FrameSink* sink);
  double next_deadline(double now) const;
  int peer_of(const sockaddr_in& from) const;
  void reject(const sockaddr_in& from, const std::string& why);
  double rto_now(const Peer& p, int timeouts) const;
  double probe_timeout(const Peer& p) const;
  bool socket_readable() const;

  int rank_, size_;
  std::string job_id_;
  uint32_t token_;
  bootstrap::Store* store_;
  Config config_;
  Options opt_;
  size_t dgram_payload_;
  double start_s_;
  std::string endpoint_;
  int fd_ = -1, epoll_fd_ = -1, wake_fd_ = -1;
  std::vector<Peer> peers_;
  std::unordered_map<uint64_t, int> by_addr_;  // ip << 16 | port -> rank
  std::unique_ptr<FaultInjector> faults_;
  std::unique_ptr<ZrlLink> zrl_;
  std::deque<std::vector<std::byte>> self_q_;  // frames to ourselves
  size_t self_bytes_ = 0;
  size_t reserved_total_ = 0;
  size_t reports_pending_ = 0;
  // arm_sleep() .. disarm_sleep(): a send() meanwhile adds a retransmission timer the
  // sleeper does not know of, so it wakes the sleeper (once per sleep).
  std::atomic<bool> armed_{false};
  int armed_ms_ = -1;
  void wait_events(int ms);
  std::vector<std::byte> rbuf_;  // receive batch buffers
  double last_reject_log_ = -1e9;
  uint64_t rejects_suppressed_ = 0;
  uint64_t rejected_ = 0;
  uint64_t retransmits_ = 0;
  uint64_t standalone_acks_ = 0;
  uint64_t round_ = 0;  // progress rounds, for deferred acks
};

}  // namespace interlace::fabric::udp
