// Contract: the completion record that every model's requests wrap (p2p requests,
// collective runs; channel, one-sided and task operations to come), so one wait can
// cover any mix of them (Context::wait_for: the MPI layer's Waitany over p2p and
// collective requests is one wait loop, not a poll in time slices).
//  - The owning model sets `done` under the Context lock (from a frame handler, a
//    progress hook, or its own poll()) once the operation has finished, failed or
//    been cancelled; the model keeps the outcome (status, error) itself. `done` is a
//    release store / acquire load: a waiter that sees it without the lock (a request
//    completed by the progress thread) also sees the outcome written before it.
//  - poll() advances work that moves only when a waiter asks (a collective schedule
//    starting its next steps); it runs under the Context lock and returns true if
//    anything moved. Operations driven entirely by frames keep the default.
#pragma once
#include <atomic>

namespace interlace::engine {

// A bool whose stores publish what was written before them (plain moves on x86).
class DoneFlag {
 public:
  DoneFlag() = default;
  DoneFlag(bool v) noexcept : v_(v) {}  // NOLINT: used as a bool
  DoneFlag(const DoneFlag& o) noexcept : v_(static_cast<bool>(o)) {}
  DoneFlag& operator=(const DoneFlag& o) noexcept { return *this = static_cast<bool>(o); }
  DoneFlag& operator=(bool v) noexcept {
    v_.store(v, std::memory_order_release);
    return *this;
  }
  operator bool() const noexcept { return v_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> v_{false};
};

struct Completion {
  DoneFlag done;
  virtual bool poll() { return false; }
  virtual ~Completion() = default;
};

}  // namespace interlace::engine
