// The tcp fabric: frames between ranks on any hosts (docs/wire.md, "TCP fabric
// handshake"). Each rank listens on one port and publishes "host:port" in the
// store under "tcp/<job id>/<rank>". On its first send to a peer a rank picks
// the socket it will always send that peer on: the connection the peer opened
// to it, if one is already admitted (one socket per pair, so replies carry the
// TCP ACKs), else a connection it opens itself. It reads every socket of the
// peer; since one direction never changes sockets, TCP keeps the frame order.
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
// After one socket of a peer ends, how long its other socket may take to
// deliver what the peer sent before dying (two sockets are not ordered).
inline constexpr double kDrainGraceS = 3.0;
// The same when our own connection to it ended and it has none to us yet (one
// may still wait in the accept queue).
inline constexpr double kAcceptGraceS = 0.5;
// Accepted connections still owing a hello beyond this are closed at once
// (a flood of strangers must not exhaust memory or descriptors).
inline constexpr size_t kMaxUnauthenticated = 256;
// The destructor's bound for pushing queued frames into the kernel.
inline constexpr double kCloseFlushS = 10.0;

// epoll tags: kind in the high 32 bits, connection slot in the low 32 bits.
enum : uint64_t { kTagListen = 1, kTagWake = 2, kTagConn = 3 };
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
  // The epoll set: readable while a socket has input or output to progress. Its wake
  // eventfd is in the set too and only wait() drains it, so a combining fabric that
  // polls this descriptor must not call wake() here.
  int wait_fd() const noexcept override { return epoll_fd_; }
  void check_peers(FrameSink& sink) override;
  bool sleeps_concurrently() const noexcept override { return true; }
  bool arm_sleep() override;
  void sleep_armed(double timeout_s) override;

  const std::string& endpoint() const noexcept { return endpoint_; }

 private:
  enum class Life { alive, closing, lost };
  struct Peer {
    Life life = Life::alive;
    int send_slot = -1;      // connection this rank sends on (chosen once)
    int own_slot = -1;       // connection this rank opened to the peer
    int accepted_slot = -1;  // connection the peer opened, once admitted
    std::string addr;        // its published address, once looked up
    uint64_t closing_deadline_ns = 0;
    std::string why;         // for on_peer_lost
    bool report_pending = false;
  };

  // tcp_fabric.cpp
  int connect_peer(int peer);  // returns the new connection's slot, -1 = lost
  size_t add_connection(std::unique_ptr<Connection> c);
  void watch_output(Connection& c, size_t slot, bool on);
  void close_gracefully();
  // tcp_events.cpp
  int service(size_t slot, uint32_t events, FrameSink& sink);
  void admit(size_t slot, uint32_t rank);
  void accept_all();
  void connection_ended(size_t slot, const std::string& why, bool protocol_error);
  void send_failed(int peer, size_t slot, int err);
  void enter_closing(int peer, const std::string& why, double grace_s);
  void mark_lost(int peer, const std::string& why);
  void doom(size_t slot);
  void check_deadlines();
  void report_lost(FrameSink& sink);
  void sweep();
  void wait_events(int ms);
  int closing_cap_ms() const;  // -1: no closing peer

  int rank_, size_;
  std::string job_id_, secret_;
  bootstrap::Store* store_;
  Config config_;
  InboundRules rules_;
  std::string endpoint_;
  int listen_fd_ = -1, epoll_fd_ = -1, wake_fd_ = -1;
  std::vector<Peer> peers_;
  std::vector<std::unique_ptr<Connection>> conns_;  // slots; null = free
  // Counters that let the hot path skip scans when nothing is pending.
  size_t unauthenticated_ = 0;  // accepted connections still owing a hello
  size_t closing_ = 0;          // peers whose outgoing side died, incoming draining
  size_t doomed_ = 0;           // connections to close at the next sweep
  size_t reports_pending_ = 0;
  int armed_cap_ms_ = -1;  // arm_sleep(): a closing peer's deadline bounds the sleep
};

}  // namespace interlace::fabric::tcp
