// Contract: kernels inside one rank, in the dataflow style of HLS designs (SMI
// Figure 12): each kernel is a function run on its own thread, and kernels talk
// through LocalStream<T>, a bounded single-producer single-consumer FIFO.
//  - LocalStream<T>(capacity): exactly one thread pushes and one thread pops.
//    push blocks while the FIFO is full, pop while it is empty; both spin a little
//    first (a pipeline stage usually finds room or data within nanoseconds), then
//    sleep on a futex so an idle kernel uses no CPU.
//  - T must be trivially copyable (the FIFO holds values, like a hardware FIFO).
//  - run_kernels({k1, k2, ...}) starts every kernel on its own thread and returns
//    when all have finished. If one throws, the others are cancelled: a kernel
//    blocked in a LocalStream push/pop (or entering one) throws
//    Error(Errc::cancelled), and run_kernels rethrows the first original
//    exception. Kernels blocked elsewhere (a network channel, a p2p receive) are
//    not interrupted; they must end on their own before run_kernels returns.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "interlace/core/error.hpp"

namespace interlace::stream {

namespace detail {
// Sleeps until `word` differs from `seen`, unless the calling kernel's group is
// cancelled (then throws Errc::cancelled). Out of line: the slow path only.
void block_on(std::atomic<uint32_t>& word, uint32_t seen);
void wake(std::atomic<uint32_t>& word);
// Busy-wait rounds before sleeping: a few microseconds of pause, then yields, so
// that with more kernels than cores the kernel we wait for gets the CPU.
inline constexpr int kLocalSpin = 256;
inline constexpr int kLocalYields = 64;
void yield() noexcept;
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
[[noreturn]] void bad_capacity(size_t capacity);
}  // namespace detail

template <class T>
class LocalStream {
  static_assert(std::is_trivially_copyable_v<T>, "LocalStream<T> needs a trivially copyable T");

 public:
  explicit LocalStream(size_t capacity = 1024) {
    if (capacity == 0 || capacity > (size_t{1} << 30)) detail::bad_capacity(capacity);
    size_t cap = 1;
    while (cap < capacity) cap <<= 1;  // power of two: index with a mask
    mask_ = cap - 1;
    slots_ = std::make_unique<T[]>(cap);
  }
  LocalStream(const LocalStream&) = delete;
  LocalStream& operator=(const LocalStream&) = delete;

  size_t capacity() const noexcept { return mask_ + 1; }

  void push(const T& v) {
    const uint64_t t = prod_.tail;
    if (t - prod_.head_cache > mask_) wait_for_room(t, 1);
    slots_[t & mask_] = v;
    publish_tail(t + 1);
  }

  T pop() {
    const uint64_t h = cons_.head;
    if (h == cons_.tail_cache) wait_for_data(h, 1);
    T v = slots_[h & mask_];
    publish_head(h + 1);
    return v;
  }

  // Moves n elements, in chunks as room/data appears (n may exceed capacity).
  void push_n(const T* src, size_t n) {
    while (n > 0) {
      const uint64_t t = prod_.tail;
      if (t - prod_.head_cache > mask_) wait_for_room(t, 1);
      size_t room = static_cast<size_t>(capacity() - (t - prod_.head_cache));
      size_t k = room < n ? room : n;
      for (size_t i = 0; i < k; ++i) slots_[(t + i) & mask_] = src[i];
      publish_tail(t + k);
      src += k;
      n -= k;
    }
  }
  void pop_n(T* dst, size_t n) {
    while (n > 0) {
      const uint64_t h = cons_.head;
      if (h == cons_.tail_cache) wait_for_data(h, 1);
      size_t avail = static_cast<size_t>(cons_.tail_cache - h);
      size_t k = avail < n ? avail : n;
      for (size_t i = 0; i < k; ++i) dst[i] = slots_[(h + i) & mask_];
      publish_head(h + k);
      dst += k;
      n -= k;
    }
  }

  bool try_push(const T& v) {
    const uint64_t t = prod_.tail;
    if (t - prod_.head_cache > mask_) {
      prod_.head_cache = head_.load(std::memory_order_acquire);
      if (t - prod_.head_cache > mask_) return false;
    }
    slots_[t & mask_] = v;
    publish_tail(t + 1);
    return true;
  }
  bool try_pop(T& out) {
    const uint64_t h = cons_.head;
    if (h == cons_.tail_cache) {
      cons_.tail_cache = tail_.load(std::memory_order_acquire);
      if (h == cons_.tail_cache) return false;
    }
    out = slots_[h & mask_];
    publish_head(h + 1);
    return true;
  }

 private:
  // seq_cst on the index stores and the sleeping-flag loads (and the reverse on
  // the sleeper's side) is what rules out a lost wake-up: either the sleeper sees
  // the new index, or the publisher sees the flag and bumps the wake word.
  void publish_tail(uint64_t t) {
    prod_.tail = t;
    tail_.store(t, std::memory_order_seq_cst);
    if (cons_sleeping_.load(std::memory_order_seq_cst)) detail::wake(cons_wake_);
  }
  void publish_head(uint64_t h) {
    cons_.head = h;
    head_.store(h, std::memory_order_seq_cst);
    if (prod_sleeping_.load(std::memory_order_seq_cst)) detail::wake(prod_wake_);
  }

  void wait_for_room(uint64_t t, size_t want) {
    for (int i = 0; i < detail::kLocalSpin + detail::kLocalYields; ++i) {
      prod_.head_cache = head_.load(std::memory_order_acquire);
      if (t + want - prod_.head_cache <= capacity()) return;
      if (i < detail::kLocalSpin) detail::cpu_relax(); else detail::yield();
    }
    for (;;) {
      const uint32_t seen = prod_wake_.load(std::memory_order_acquire);
      prod_sleeping_.store(true, std::memory_order_seq_cst);
      prod_.head_cache = head_.load(std::memory_order_seq_cst);
      if (t + want - prod_.head_cache <= capacity()) break;
      try {
        detail::block_on(prod_wake_, seen);
      } catch (...) {
        prod_sleeping_.store(false, std::memory_order_relaxed);
        throw;
      }
    }
    prod_sleeping_.store(false, std::memory_order_relaxed);
  }

  void wait_for_data(uint64_t h, size_t want) {
    for (int i = 0; i < detail::kLocalSpin + detail::kLocalYields; ++i) {
      cons_.tail_cache = tail_.load(std::memory_order_acquire);
      if (cons_.tail_cache - h >= want) return;
      if (i < detail::kLocalSpin) detail::cpu_relax(); else detail::yield();
    }
    for (;;) {
      const uint32_t seen = cons_wake_.load(std::memory_order_acquire);
      cons_sleeping_.store(true, std::memory_order_seq_cst);
      cons_.tail_cache = tail_.load(std::memory_order_seq_cst);
      if (cons_.tail_cache - h >= want) break;
      try {
        detail::block_on(cons_wake_, seen);
      } catch (...) {
        cons_sleeping_.store(false, std::memory_order_relaxed);
        throw;
      }
    }
    cons_sleeping_.store(false, std::memory_order_relaxed);
  }

  static constexpr size_t kLine = 64;
  // Each side's private copy of the indices lives on its own cache line, so the
  // common case (room/data known from the cached index) touches no shared line.
  struct alignas(kLine) Producer { uint64_t tail = 0, head_cache = 0; };
  struct alignas(kLine) Consumer { uint64_t head = 0, tail_cache = 0; };

  std::unique_ptr<T[]> slots_;
  size_t mask_ = 0;
  Producer prod_;
  Consumer cons_;
  alignas(kLine) std::atomic<uint64_t> tail_{0};
  alignas(kLine) std::atomic<uint64_t> head_{0};
  alignas(kLine) std::atomic<bool> cons_sleeping_{false};
  std::atomic<uint32_t> cons_wake_{0};
  alignas(kLine) std::atomic<bool> prod_sleeping_{false};
  std::atomic<uint32_t> prod_wake_{0};
};

using Kernel = std::function<void()>;

// Runs every kernel on its own thread; see the contract at the top.
void run_kernels(std::vector<Kernel> kernels);

}  // namespace interlace::stream
