// Internal: the Executor's lock. Its critical sections are a few hundred nanoseconds
// (registering one task's accesses, releasing another's), far shorter than a futex
// round trip: std::mutex put a contending spawner or worker to sleep in the kernel and
// made the unlocking thread wake it, which was most of the per-task cost with two
// workers (docs/tasks.md, "Overhead"). This lock spins briefly before it sleeps, so a
// holder that is merely busy is waited for in user space, and one that was preempted
// still costs no CPU for long.
#pragma once
#include <atomic>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace interlace::task::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

class SpinLock {
 public:
  void lock() noexcept {
    int expected = 0;
    if (state_.compare_exchange_strong(expected, 1, std::memory_order_acquire,
                                       std::memory_order_relaxed))
      return;
    lock_slow();
  }
  // try_lock and unlock are sequentially consistent: the Executor's completion
  // hand-off (ExecMutex) relies on a failed try_lock being ordered before the unlock
  // that follows, and that unlock before the holder's next look at its queue.
  bool try_lock() noexcept {
    int expected = 0;
    return state_.compare_exchange_strong(expected, 1, std::memory_order_seq_cst,
                                          std::memory_order_seq_cst);
  }
  // A hint, for waiting without writing the lock's cache line.
  bool is_locked() const noexcept { return state_.load(std::memory_order_relaxed) != 0; }
  void unlock() noexcept {
    // 2: someone may sleep on the lock; only then is the (system) call needed.
    if (state_.exchange(0, std::memory_order_seq_cst) == 2) state_.notify_one();
  }

 private:
  void lock_slow() noexcept {
    // Roughly 1-4 us of pausing: several critical sections' worth.
    for (int i = 0; i < 256; ++i) {
      cpu_relax();
      int s = state_.load(std::memory_order_relaxed);
      if (s == 0 && state_.compare_exchange_weak(s, 1, std::memory_order_acquire,
                                                 std::memory_order_relaxed))
        return;
    }
    // Sleep, marking the lock as wanted (2) so that unlock() wakes a sleeper.
    while (state_.exchange(2, std::memory_order_acquire) != 0) state_.wait(2, std::memory_order_relaxed);
  }

  std::atomic<int> state_{0};  // 0 free, 1 held, 2 held and maybe wanted by a sleeper
};

}  // namespace interlace::task::detail
