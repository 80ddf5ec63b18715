// The ucx fabric: frames between ranks over UCX's UCP active messages (docs/ucx.md).
// Each rank opens one UCP worker and publishes its worker address in the store under
// "ucx/<job id>/<rank>"; endpoints to peers are created on first use. A frame travels
// as one active message whose UCX header is the frame header plus an order number per
// pair; the receiver delivers by that number, so frames of one source arrive in order
// whatever the eager/rendezvous protocols do underneath.
//  - Eager (len <= INTERLACE_UCX_RNDV_THRESH): the frame is copied into a block the
//    fabric owns until UCX completes the send, so send() returns at once.
//  - Rendezvous (larger): UCX reads the payload straight from the caller's buffer
//    (zero-copy: RDMA or cma get), and send() progresses the worker until it completes,
//    since the buffer is the caller's again once send() returns ok.
#pragma once
#include <ucp/api/ucp.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "interlace/fabric/fabric.hpp"

namespace interlace::fabric::ucx {

inline constexpr size_t kMaxPayload = 64ull << 20;
// send() says would_block once this many bytes of eager copies wait for one peer.
inline constexpr size_t kEagerQueueBound = 4ull << 20;
inline constexpr unsigned kAmId = 11;
inline constexpr unsigned kHelloId = 12;  // construction: every pair wired up (ucx_connect.cpp)

// The active message header: the frame header, who sent it (the neighbour, not the
// origin of a routed frame) and its order number on that pair.
struct WireHead {
  FrameHeader h;
  uint32_t from = 0;
  uint32_t order = 0;
};

class UcxFabric;
// The argument of one endpoint's error handler.
struct EpErrorArg {
  UcxFabric* fabric;
  int peer;
};

struct Options {
  size_t rndv_thresh = 64 * 1024;   // INTERLACE_UCX_RNDV_THRESH
  std::string keepalive = "1s";     // UCX_KEEPALIVE_INTERVAL unless the user set it
};
Options read_options();  // throws invalid_argument naming the bad value

class UcxFabric final : public Fabric {
 public:
  explicit UcxFabric(const FabricInit& init);
  ~UcxFabric() override;

  const char* name() const noexcept override { return "ucx"; }
  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return size_; }
  size_t max_payload() const noexcept override { return kMaxPayload; }

  Errc send(int peer, const FrameHeader& h, const void* payload, size_t len) override;
  int progress(FrameSink& sink) override;
  void wait(double timeout_s) override;
  void wake() override;
  void check_peers(FrameSink& sink) override;
  void watch_peer(int peer) override;
  void wait_unless(double timeout_s, const std::function<bool()>& ready, bool memory) override;
  // The progress thread's sleep (fabric.hpp, docs/progress.md): arm_sleep() arms the
  // worker under the engine's lock, sleep_armed() polls UCX's event fd and wake()'s
  // eventfd without touching the worker, so other threads may send meanwhile.
  bool sleeps_concurrently() const noexcept override { return true; }
  bool arm_sleep() override;
  void sleep_armed(double timeout_s) override;
  void disarm_sleep() override { armed_ = false; }

  // Callbacks from UCX (ucx_recv.cpp, ucx_send.cpp); public for the C trampolines.
  ucs_status_t on_am(const void* header, size_t header_len, void* data, size_t len,
                     const ucp_am_recv_param_t* param);
  void on_recv_done(int from, uint64_t order, ucs_status_t status);
  void on_ep_error(int peer, ucs_status_t status);
  void on_eager_done(int peer, size_t bytes) {
    peers_[peer].eager_bytes -= bytes;
    --peers_[peer].eager_pending;
  }
  void on_hello(int from);

 private:
  struct Inbound {
    WireHead head;
    std::unique_ptr<std::byte[]> data;  // not zero-filled: rendezvous frames are large
    bool ready = false;  // a rendezvous receive is done (eager ones are at once)
  };
  struct Peer {
    ucp_ep_h ep = nullptr;
    bool lost = false, reported = false;
    std::string why;
    bool dirty = false;         // listed in dirty_
    uint32_t next_send = 0;     // order number of our next frame to it (wraps)
    uint64_t next_deliver = 0;  // order number of its next frame to deliver (no wrap)
    std::map<uint64_t, Inbound> inbox;  // arrived or arriving, by order number
    size_t eager_bytes = 0;     // our eager copies UCX still holds
    size_t eager_pending = 0;   // and how many
    bool peer_mode = true;      // UCX watches the endpoint (UCP_ERR_HANDLING_MODE_PEER)
    bool hello = false;         // its hello arrived
    int pid = 0;                // same host, endpoint without peer mode: kill(pid, 0)
  };

  // ucx_fabric.cpp
  void open_worker();
  void set_am_handler(unsigned id, ucp_am_recv_callback_t cb);  // whole messages, arg = this
  void publish_address();
  ucp_ep_h endpoint(int peer);  // nullptr: lost (peers_[peer].why says why)
  void mark_lost(int peer, const std::string& why);
  void close_endpoints();
  // ucx_connect.cpp
  void connect_all();
  bool peer_alive(int peer);  // the pid check of endpoints UCX does not watch
  // ucx_recv.cpp
  int deliver(FrameSink& sink);
  int report_lost(FrameSink& sink);
  bool has_deliverable() const;
  // ucp_worker_progress, then the rendezvous receives its callbacks filed.
  int pump();
  void start_receives();
  void mark_dirty(int peer);
  // Arms the worker's wake-up and sleeps on it (and on wake() when `wakeable`) for at
  // most timeout_s; returns at once if UCX has events pending or ready() holds.
  void sleep(double timeout_s, bool wakeable, const std::function<bool()>* ready);

  int rank_, size_;
  std::string job_id_;
  bootstrap::Store* store_;
  Config config_;
  Options opts_;
  bool transit_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  int efd_ = -1, wake_fd_ = -1;
  std::vector<Peer> peers_;
  std::vector<int> dirty_;  // peers with inbox entries to look at
  std::vector<std::unique_ptr<EpErrorArg>> ep_args_;  // live while their endpoints may call
  size_t lost_pending_ = 0;
  size_t rndv_in_flight_ = 0;  // rendezvous receives under way
  struct PendingRndv {
    int from;
    uint64_t order;
    void* desc;
  };
  std::vector<PendingRndv> to_start_;  // rendezvous arrivals to receive
  bool eager_in_flight() const {
    for (const Peer& p : peers_)
      if (p.eager_pending) return true;
    return false;
  }
  // arm_sleep() .. disarm_sleep(), both under the engine's lock like send(); a send()
  // that leaves work for the worker wakes the sleeper once (wake_sleeper()).
  bool armed_ = false, armed_woken_ = false;
  bool armed_efd_ = false;  // the worker's wake-up is armed (else nap on wake() only)
  int armed_cap_ms_ = -1;   // a transfer under way: UCX's tcp does not signal every chunk
  void wake_sleeper() {
    if (armed_ && !armed_woken_) {
      armed_woken_ = true;
      wake();
    }
  }
  int hellos_got_ = 0;
  uint32_t hello_from_ = 0;  // the hellos' header: read by UCX until each send completes
  bool peer_mode_ok_ = true;  // a peer-mode endpoint was not refused yet
  std::string host_;
};

}  // namespace interlace::fabric::ucx
