// The two-tier fabric: a host fabric for the ranks on this host, a network fabric
// for the others (contract in interlace/fabric/tiers.hpp).
//
// Waiting is the one hard part: shm sleeps on a futex, tcp in epoll, and a rank
// must wake on either. The rank sleeps in the host fabric; a small waker thread
// sleeps in poll() on the network fabric's wait_fd() and calls the host fabric's
// wake() (thread-safe by contract) when it turns readable. The waker polls once
// per wait() ("armed"), so a descriptor that stays readable while the rank is busy
// costs at most one early return per wait, never a spinning thread.
//
// The progress thread's sleep (arm_sleep .. disarm_sleep, fabric.hpp) is the same
// split: both tiers are armed while the fabric is held, the sleep itself is the host
// fabric's sleep_armed(), and the waker, kicked after arming, watches the network
// side. Its poll() is level-triggered on the network fabric's descriptor (tcp's epoll
// set), so a frame, or a send that queued output, between arming and the poll is
// still seen, and the host's wake() after its arm_sleep() makes its sleep return.
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "interlace/core/error.hpp"
#include "interlace/fabric/tiers.hpp"

namespace interlace::fabric {
namespace {

class TierFabric final : public Fabric {
 public:
  TierFabric(std::unique_ptr<Fabric> host, std::unique_ptr<Fabric> net, std::vector<uint8_t> local)
      : host_(std::move(host)), net_(std::move(net)), local_(std::move(local)) {
    if (!host_ || !net_ || host_->rank() != net_->rank() || host_->size() != net_->size() ||
        local_.size() != static_cast<size_t>(net_->size()))
      throw_error(Errc::invalid_argument, "two-tier fabric: the host and network fabrics must serve the same ranks");
    name_ = std::string(host_->name()) + "+" + net_->name();
    max_payload_ = std::min(host_->max_payload(), net_->max_payload());
    local_[static_cast<size_t>(host_->rank())] = 1;
    if (net_->wait_fd() >= 0) {
      stop_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
      if (stop_fd_ < 0) throw_system_error("two-tier fabric: eventfd");
      waker_ = std::thread([this] { waker_main(); });
    }
  }

  ~TierFabric() override {
    if (waker_.joinable()) {
      {
        std::lock_guard<std::mutex> g(m_);
        stop_ = true;
      }
      cv_.notify_one();
      uint64_t one = 1;
      ssize_t r = ::write(stop_fd_, &one, sizeof one);
      (void)r;
      waker_.join();
    }
    if (stop_fd_ >= 0) ::close(stop_fd_);
  }

  const char* name() const noexcept override { return name_.c_str(); }
  int rank() const noexcept override { return host_->rank(); }
  int size() const noexcept override { return host_->size(); }
  size_t max_payload() const noexcept override { return max_payload_; }
  size_t max_payload_to(int peer) const noexcept override { return tier(peer).max_payload_to(peer); }

  Errc send(int peer, const FrameHeader& h, const void* payload, size_t len) override {
    if (static_cast<unsigned>(peer) >= local_.size()) return Errc::invalid_rank;
    return tier(peer).send(peer, h, payload, len);
  }
  int progress(FrameSink& sink) override { return host_->progress(sink) + net_->progress(sink); }
  void wait(double timeout_s) override { wait_unless(timeout_s, nullptr, false); }
  void wait_unless(double timeout_s, const std::function<bool()>& ready, bool memory) override {
    if (!waker_.joinable()) {
      // No descriptor to watch: bound the sleep so network frames are seen soon.
      host_->wait_unless(std::min(timeout_s, 0.001), ready, memory);
      return;
    }
    {
      std::lock_guard<std::mutex> g(m_);
      ++armed_;
    }
    cv_.notify_one();
    host_->wait_unless(timeout_s, ready, memory);
  }
  // Only the host fabric: the rank sleeps there (and tcp's own wake-up would keep its
  // epoll set readable until a tcp wait() that never comes).
  void wake() override { host_->wake(); }

  // Without a waker (no network descriptor) nothing would end the sleep on a network
  // frame: the caller then polls with its back-off.
  bool sleeps_concurrently() const noexcept override {
    return waker_.joinable() && host_->sleeps_concurrently() && net_->sleeps_concurrently();
  }
  bool arm_sleep() override {
    if (!host_->arm_sleep()) return false;
    // The network tier records its own state (tcp: a closing peer, reports to give).
    if (!net_->arm_sleep()) {
      host_->disarm_sleep();
      return false;
    }
    return true;
  }
  // Kicked here rather than in arm_sleep(): the waker's poll only reads the descriptor,
  // and a kick that precedes the host sleep is all the ordering it needs.
  void sleep_armed(double timeout_s) override {
    {
      std::lock_guard<std::mutex> g(m_);
      ++armed_;
    }
    cv_.notify_one();
    host_->sleep_armed(timeout_s);
  }
  void disarm_sleep() override {
    net_->disarm_sleep();
    host_->disarm_sleep();
  }
  void check_peers(FrameSink& sink) override {
    host_->check_peers(sink);
    net_->check_peers(sink);
  }
  void watch_peer(int peer) override {
    if (static_cast<unsigned>(peer) < local_.size()) tier(peer).watch_peer(peer);
  }

  void* expose_region(uint32_t id, size_t len) override { return host_->expose_region(id, len); }
  void* map_region(int peer, uint32_t id, size_t len) override {
    return is_local(peer) ? host_->map_region(peer, id, len) : nullptr;
  }
  void notify(int peer) override {
    if (is_local(peer)) host_->notify(peer);
  }
  Errc rma_put(int peer, uint32_t id, uint64_t off, const void* src, size_t len) override {
    if (static_cast<unsigned>(peer) >= local_.size()) return Errc::invalid_rank;
    return tier(peer).rma_put(peer, id, off, src, len);
  }
  Errc rma_get(int peer, uint32_t id, uint64_t off, void* dst, size_t len) override {
    if (static_cast<unsigned>(peer) >= local_.size()) return Errc::invalid_rank;
    return tier(peer).rma_get(peer, id, off, dst, len);
  }
  Errc rma_flush(int peer) override {
    if (static_cast<unsigned>(peer) >= local_.size()) return Errc::invalid_rank;
    return tier(peer).rma_flush(peer);
  }
  Errc remote_write(int peer, uint64_t addr, const void* local, size_t len) override {
    return is_local(peer) ? host_->remote_write(peer, addr, local, len) : Errc::unsupported;
  }
  bool remote_read_available(int peer) const noexcept override {
    return is_local(peer) && host_->remote_read_available(peer);
  }
  Errc remote_read(int peer, uint64_t addr, void* local, size_t len) override {
    return is_local(peer) ? host_->remote_read(peer, addr, local, len) : Errc::unsupported;
  }
  const char* fabric_of(int peer) const noexcept override {
    return is_local(peer) ? host_->fabric_of(peer) : net_->fabric_of(peer);
  }

 private:
  bool is_local(int peer) const noexcept {
    return static_cast<unsigned>(peer) < local_.size() && local_[static_cast<size_t>(peer)];
  }
  Fabric& tier(int peer) const noexcept { return is_local(peer) ? *host_ : *net_; }

  void waker_main() {
    uint64_t served = 0;
    pollfd fds[2] = {{net_->wait_fd(), POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stop_ || armed_ != served; });
        if (stop_) return;
        served = armed_;
      }
      fds[0].revents = fds[1].revents = 0;
      int n = ::poll(fds, 2, -1);
      if (fds[1].revents) return;
      if (n > 0) host_->wake();
    }
  }

  std::unique_ptr<Fabric> host_, net_;
  std::vector<uint8_t> local_;
  std::string name_;
  size_t max_payload_ = 0;
  std::thread waker_;
  int stop_fd_ = -1;
  std::mutex m_;
  std::condition_variable cv_;
  uint64_t armed_ = 0;  // wait() calls so far; the waker polls once per call
  bool stop_ = false;
};

}  // namespace

std::unique_ptr<Fabric> make_tier_fabric(std::unique_ptr<Fabric> host, std::unique_ptr<Fabric> net,
                                         std::vector<uint8_t> local) {
  return std::make_unique<TierFabric>(std::move(host), std::move(net), std::move(local));
}

}  // namespace interlace::fabric
