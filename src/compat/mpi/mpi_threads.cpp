// MPI_THREAD_MULTIPLE: one process-wide MPI lock, taken by guard() around every call.
//
// Why one lock and not finer ones: the MPI layer's state (handle tables, request
// bookkeeping, buffered sends, error codes) is small and touched by nearly every call;
// the engine below is already safe for several threads once its Context lock is on
// (as for INTERLACE_PROGRESS=thread). What must not happen is a thread holding the
// MPI lock while it waits for a peer, or for another thread of its own rank: so the
// lock is let go inside the engine's wait loop. The wait loop announces a long wait
// through interlace/core/blocking.hpp (after its spin rounds); the listener each MPI
// thread installs here releases the lock (all recursion levels) then and takes it back
// when the wait ends. Every blocking MPI call (p2p, probes, collectives, communicator
// creation, generalized and partitioned requests) waits in that loop, so none of them
// can starve the others, whichever file implements it.
#include <algorithm>
#include <mutex>
#include <thread>

#include "compat/mpi/mpi_core.hpp"
#include "interlace/core/blocking.hpp"
#include "interlace/engine/context.hpp"

namespace interlace::mpi {

std::atomic<bool> g_thread_multiple{false};

namespace {

// Recursive, and able to be let go of completely by its owner and taken back later.
class MpiLock {
 public:
  void lock() {
    const std::thread::id me = std::this_thread::get_id();
    if (owner_.load(std::memory_order_relaxed) == me) { ++depth_; return; }
    m_.lock();
    owner_.store(me, std::memory_order_relaxed);
    depth_ = 1;
  }
  void unlock() {
    if (--depth_ > 0) return;
    owner_.store(std::thread::id(), std::memory_order_relaxed);
    m_.unlock();
  }
  // The caller's recursion depth, after letting go (0: it did not hold the lock).
  int release_all() {
    if (owner_.load(std::memory_order_relaxed) != std::this_thread::get_id()) return 0;
    const int d = depth_;
    depth_ = 0;
    owner_.store(std::thread::id(), std::memory_order_relaxed);
    m_.unlock();
    return d;
  }
  void reacquire(int depth) {
    if (depth == 0) return;
    m_.lock();
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    depth_ = depth;
  }

 private:
  std::mutex m_;
  std::atomic<std::thread::id> owner_{};
  int depth_ = 0;  // only the owner touches it
};

MpiLock g_lock;

// Per thread: lets go of the MPI lock while the thread waits in the engine. Chains to a
// listener that was there before (a task worker's), which must still hear of waits.
// Taking the lock back blocks, which the listener contract discourages; it is safe
// here because no engine lock is held at that point (the wait loop has returned) and
// a holder of the MPI lock lets go of it within its own spin rounds.
class Releaser final : public blocking::Listener {
 public:
  void install() {
    if (installed_) return;
    installed_ = true;
    prev_ = blocking::set_thread_listener(this);
  }
  ~Releaser() override {
    if (installed_) blocking::set_thread_listener(prev_);  // the thread is ending
  }
  void on_block() noexcept override {
    saved_ = g_lock.release_all();
    if (prev_) prev_->on_block();
  }
  void on_unblock() noexcept override {
    if (prev_) prev_->on_unblock();
    g_lock.reacquire(saved_);
    saved_ = 0;
  }

 private:
  bool installed_ = false;
  blocking::Listener* prev_ = nullptr;
  int saved_ = 0;
};

thread_local Releaser t_releaser;

}  // namespace

void mpi_lock() {
  t_releaser.install();
  g_lock.lock();
}

void mpi_unlock() { g_lock.unlock(); }

int grant_thread_level(int required) {
  const int level = std::clamp(required, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE);
  if (level == MPI_THREAD_MULTIPLE) {
    // The engine's lock guards its state from here on (waits then poll instead of
    // sleeping in the fabric: docs/architecture.md); no other thread runs MPI yet.
    state().rt.context().lock().enable();
    g_thread_multiple.store(true, std::memory_order_release);
  }
  return level;
}

}  // namespace interlace::mpi
