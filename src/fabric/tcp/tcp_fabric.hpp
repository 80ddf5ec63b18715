// The tcp fabric: frames between ranks on any hosts (docs/wire.md, "TCP fabric
// handshake"). Each rank listens on one port and publishes "host:port" in the
// store under "tcp/<job id>/<rank>". A rank sends only on the connection it
// opened to a peer (lazily, on the first send) and receives only on connections
// it accepted, so one socket carries one direction of one ordered pair and
// TCP's byte order gives the per-pair frame order.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "fabric/tcp/tcp_conn.hpp"
#include "interlace/fabric/fabric.hpp"

namespace interlace::fabric::tcp {

inline constexpr size_t kMaxPayload = 64ull << 20;
// send() says would_block once this much is queued for one peer (a single
// frame may exceed it: it is taken when the queue is empty).
inline constexpr size_t kOutQueueBound = 4ull << 20;
// After a peer's outgoing side breaks, how long its incoming side may take to
// deliver what it sent before dying (the two sockets are not ordered).
inline constexpr double kDrainGraceS = 3.0;
// The same when it has no connection to us yet (one may be in the accept queue).
inline constexpr double kAcceptGraceS = 0.5;
// Accepted connections still owing a hello beyond this are closed at once
// (a flood of strangers must not exhaust memory or descriptors).
inline constexpr size_t kMaxUnauthenticated = 256;
// The destructor's bound for pushing queued frames into the kernel.
inline constexpr double kCloseFlushS = 10.0;

// epoll tags: kind in the high 32 bits, peer or slot in the low 32 bits.
enum : uint64_t { kTagListen = 1, kTagWake = 2, kTagOut = 3, kTagIn = 4 };
inline uint64_t epoll_tag(uint64_t kind, uint32_t index) { return kind << 32 | index; }

class TcpFabric final : public Fabric {
 public:
  explicit TcpFabric(const FabricInit& init);
  ~TcpFabric() override;

  const char* name() const noexcept override { return "tcp"; }
  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return size_; }
  size_t max_payload() const noexcept override { return kMaxPayload; }

  Errc send(int peer, const FrameHeader& h, const void* payload, size_t len) override;
  int progress(FrameSink& sink) override;
  void wait(double timeout_s) override;
  void wake() override;
  void check_peers(FrameSink& sink) override;

  const std::string& endpoint() const noexcept { return endpoint_; }

 private:
  enum class Life { alive, closing, lost };
  struct Peer {
    Life life = Life::alive;
    int out_fd = -1;
    std::string out_addr;
    OutQueue out;
    bool out_polled = false;  // EPOLLOUT registered
    int in_slot = -1;         // index in inbound_ of its authenticated connection
    uint64_t closing_deadline_ns = 0;
    std::string why;          // for on_peer_lost
    bool report_pending = false;
  };

  // tcp_fabric.cpp
  bool connect_peer(int peer);
  void watch_output(Peer& p, int peer, bool on);
  // tcp_events.cpp
  int service_inbound(size_t slot, FrameSink& sink);
  void admit(size_t slot, uint32_t rank);
  void accept_all();
  void on_output_event(int peer, uint32_t events);
  void output_failed(int peer, const std::string& why);
  void close_output(Peer& p);
  void doom(InboundConn& c);
  void inbound_ended(int peer, const std::string& why);
  void mark_lost(int peer, const std::string& why);
  void check_deadlines();
  void report_lost(FrameSink& sink);
  void sweep();

  int rank_, size_;
  std::string job_id_, secret_;
  bootstrap::Store* store_;
  Config config_;
  InboundRules rules_;
  std::string endpoint_;
  int listen_fd_ = -1, epoll_fd_ = -1, wake_fd_ = -1;
  std::vector<Peer> peers_;
  std::vector<std::unique_ptr<InboundConn>> inbound_;
  // Counters that let the hot path skip scans when nothing is pending.
  size_t unauthenticated_ = 0;  // accepted connections still owing a hello
  size_t closing_ = 0;          // peers whose outgoing side died, incoming draining
  size_t doomed_ = 0;           // inbound connections to close at the next sweep
  size_t reports_pending_ = 0;
};

}  // namespace interlace::fabric::tcp
