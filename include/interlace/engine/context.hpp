// Contract: one Context per rank (a process, or a thread in the threads-as-ranks
// harness); no global state. It owns the bootstrap store and the fabric, dispatches
// arrived frames to the handler registered for their kind, keeps a per-peer backlog
// when a fabric is full (so send_frame never blocks and handlers may send), and turns
// dead peers into errors for the models that registered peer-lost listeners.
// Progress is inline (inside wait_until/progress) or, with INTERLACE_PROGRESS=thread,
// also driven by a progress thread; then every API entry holds lock() (a no-op lock
// in inline mode, so the default hot path takes no lock).
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <mutex>
#include <string>
#include <thread>
#include <atomic>
#include <condition_variable>
#include <vector>

#include "interlace/bootstrap/environment.hpp"
#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/config.hpp"
#include "interlace/core/error.hpp"
#include "interlace/engine/completion.hpp"
#include "interlace/fabric/fabric.hpp"

namespace interlace::engine {

using FrameHandler = void (*)(void* self, const fabric::FrameHeader& h, const std::byte* payload);
using PeerLostHandler = void (*)(void* self, int peer);
// Called once per progress round; returns true if it moved anything (e.g. pushed chunks).
using ProgressHook = bool (*)(void* self);
using CommFreeHandler = void (*)(void* self, uint64_t comm_id);

struct ContextOptions {
  bootstrap::Environment env;
  Config config;
  std::shared_ptr<bootstrap::Store> store;  // null: open env.store_url
};

// A lock that is real only when a progress thread exists.
class OptionalLock {
 public:
  void lock() { if (enabled_) m_.lock(); }
  void unlock() { if (enabled_) m_.unlock(); }
  // Idempotent without a store: the MPI layer enables it again for MPI_THREAD_MULTIPLE
  // while a progress thread may already read it.
  void enable() {
    if (!enabled_) enabled_ = true;
  }
  bool enabled() const { return enabled_; }
 private:
  std::recursive_mutex m_;
  bool enabled_ = false;
};

class Context final : private fabric::FrameSink {
 public:
  explicit Context(ContextOptions opts);
  ~Context() override;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Options from the process environment (launcher, mpirun, Slurm or singleton).
  static ContextOptions options_from_environment();

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  const Config& config() const noexcept { return config_; }
  // A world rank listed in INTERLACE_ZRLMPI_RANKS: a ZRLMPI node, not an interlace
  // process (docs/zrlmpi.md). Start-up waits for none of them; only p2p reaches them.
  bool foreign(int world) const noexcept {
    return world >= 0 && world < size_ && !foreign_.empty() && foreign_[world];
  }
  int foreign_count() const noexcept { return static_cast<int>(config_.zrlmpi_ranks.size()); }
  // Raises unsupported naming the first ZRLMPI node among `worlds` (world ranks):
  // `what` ("MPI_Bcast", "split") cannot involve one.
  void require_no_foreign(const std::vector<int>& worlds, const std::string& what) const;
  const bootstrap::Environment& environment() const noexcept { return env_; }
  // The wait policy in force (INTERLACE_SPIN / INTERLACE_YIELD, or chosen by crowding).
  int spin_rounds() const noexcept { return spin_rounds_; }
  int yield_rounds() const noexcept { return yield_rounds_; }
  fabric::Fabric& fabric() noexcept { return *fabric_; }
  bootstrap::Store& store() noexcept { return *store_; }
  OptionalLock& lock() noexcept { return lock_; }

  void set_handler(uint8_t kind, FrameHandler fn, void* self);
  void add_peer_lost_listener(PeerLostHandler fn, void* self);
  void add_progress_hook(ProgressHook fn, void* self);
  // Models that keep per-communicator state drop it when a communicator goes (the
  // groups layer's CommState destructor calls notify_comm_freed).
  void add_comm_free_listener(CommFreeHandler fn, void* self);
  void notify_comm_freed(uint64_t comm_id);

  // Fills h.src/dst/magic/version; never blocks. lost_peer if the peer is known dead,
  // invalid_argument if len exceeds fabric().max_payload().
  Errc send_frame(int peer, fabric::FrameHeader& h, const void* payload, size_t len);

  // Like send_frame but returns would_block instead of queueing (used to stream
  // chunks: the caller retries from a progress hook, so memory stays bounded).
  Errc try_send_frame(int peer, fabric::FrameHeader& h, const void* payload, size_t len);

  // One round: flush backlogs, poll the fabric. Returns true if any frame moved.
  bool progress();

  // Progresses until done() is true. Spins, then yields the core (INTERLACE_SPIN,
  // INTERLACE_YIELD; by default chosen by how crowded the host is), then
  // blocks in the fabric, checking peer liveness every config().peer_check_s.
  // Returns timeout when the deadline passes first.
  Errc wait_until(const std::function<bool()>& done, Deadline deadline = {});
  // The same for a condition on memory that peers store to directly (PGAS): a
  // sleeping waiter announces it, so that their Fabric::notify wakes it.
  Errc wait_until_memory(const std::function<bool()>& done, Deadline deadline = {});

  // Waits until any (`any`) or every completion in `set` is done, polling each that is
  // not; null entries count as done. The same spin/yield/block policy as wait_until.
  Errc wait_for(std::span<Completion* const> set, bool any, Deadline deadline = {});

  // False until every frame the peer sent that a started model can take was delivered,
  // even after the fabric reported the loss (a model's late start leaves some queued).
  bool peer_lost(int peer) const noexcept;
  // A model waits for `peer` (e.g. a posted receive): let the fabric watch it for
  // death even if no frame was ever exchanged with it. Cheap after the first call.
  void watch_peer(int peer) {
    if (peer >= 0 && peer < size_ && !watched_[peer]) {
      watched_[peer] = 1;
      fabric_->watch_peer(peer);
    }
  }
  // Models with work that progresses only from their hooks (chunks waiting for room
  // in a fabric) hold a count here, so waits poll instead of blocking for frames.
  void add_busy(int delta) noexcept {
    busy_ += delta;
    if (delta > 0) wake_progress();
  }
  // Work that only a progress round moves was posted without a frame arriving (a
  // frame went to the backlog, a loopback queue grew): wakes the progress thread if it
  // sleeps in the fabric (docs/progress.md). Call under lock(); cheap when awake.
  void wake_progress() noexcept {
    if (progress_asleep_.load(std::memory_order_relaxed)) fabric_->wake();
  }
  bool finalized() const noexcept { return finalized_; }
  // Starts the progress thread now (INTERLACE_PROGRESS=auto and a model that needs
  // it, like PGAS over tcp). Call before other threads use this Context. Idempotent.
  void start_progress_thread();
  // Drains backlogs, stops the progress thread, closes the fabric. Idempotent.
  void finalize();

  // Unique ids for objects a rank creates (communicators): increments per call.
  uint64_t next_local_id() noexcept { return ++local_ids_; }

  // True while frames to `peer` wait in the backlog (the fabric was full). Streaming
  // senders wait on this so that a fast producer cannot grow the backlog unbounded.
  bool backlogged(int peer) const noexcept {
    return peer >= 0 && peer < size_ && !backlog_[peer].empty();
  }

  // Payload bytes waiting in all backlogs (for tests and diagnostics).
  size_t backlog_bytes() const noexcept { return backlog_bytes_; }

  // Per-rank state of a model above the engine (stream, coll, ...), created by the
  // model on first use; it lives exactly as long as this Context (no globals).
  enum class Model : uint8_t { stream = 0, coll = 1, pgas = 2, task = 3, p2p = 4 };
  std::shared_ptr<void>& model_state(Model m) noexcept {
    return models_[static_cast<size_t>(m)];
  }

 private:
  void on_frame(const fabric::FrameHeader& h, const std::byte* payload) override;
  void on_peer_lost(int peer, const std::string& why) override;
  bool flush_backlogs();
  bool replay_orphans();
  void progress_thread_main();
  void choose_wait_policy();
  Errc wait_loop(const std::function<bool()>& done, Deadline deadline, bool memory);

  struct Pending {
    fabric::FrameHeader h;
    std::vector<std::byte> payload;
  };
  struct Handler { FrameHandler fn = nullptr; void* self = nullptr; };
  struct Listener { PeerLostHandler fn; void* self; };

  int rank_ = 0, size_ = 1;
  bootstrap::Environment env_;
  Config config_;
  std::shared_ptr<bootstrap::Store> store_;
  std::unique_ptr<fabric::Fabric> fabric_;
  Handler handlers_[fabric::kKindCount];
  std::vector<Listener> lost_listeners_;
  // Frames of a kind whose model has not registered yet on this rank (a peer's model
  // may start first): kept and delivered once the handler exists.
  std::deque<Pending> orphans_;
  bool deliver_orphans_ = false;
  struct Hook { ProgressHook fn; void* self; };
  std::vector<Hook> hooks_;
  struct CommFreeListener { CommFreeHandler fn; void* self; };
  std::vector<CommFreeListener> comm_free_listeners_;
  std::vector<std::deque<Pending>> backlog_;  // per peer; empty in steady state
  size_t backlog_frames_ = 0;
  size_t backlog_bytes_ = 0;
  std::vector<uint8_t> lost_;
  std::vector<uint8_t> foreign_;
  std::vector<uint8_t> watched_;
  int busy_ = 0;
  int spin_rounds_ = 2000, yield_rounds_ = 0;  // resolved from config (auto: by crowding)
  bool in_progress_ = false;
  bool finalized_ = false;
  uint64_t local_ids_ = 0;
  OptionalLock lock_;
  std::thread progress_thread_;
  std::atomic<bool> stop_thread_{false};
  // Set under lock_ while the progress thread sleeps in the fabric (arm_sleep ..
  // disarm_sleep); read under lock_ by threads that post work.
  std::atomic<bool> progress_asleep_{false};
  // Application threads waiting in thread mode block here until a progress round moved
  // something (progress_gen_ changes); the progress thread notifies only when some wait.
  std::mutex waiters_m_;
  std::condition_variable waiters_cv_;
  std::atomic<uint64_t> progress_gen_{0};
  std::atomic<int> waiters_{0};
  void publish_progress();
  std::shared_ptr<void> models_[8];  // last member: destroyed first, after finalize()
};

}  // namespace interlace::engine
