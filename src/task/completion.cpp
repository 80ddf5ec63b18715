// Delegated completion and the queue hand-off (task_impl.hpp, docs/tasks.md
// "Overhead"): a worker whose task ended pushes it on Impl::done and completes it only
// if the Executor's lock is free; otherwise whoever holds the lock completes it on
// unlocking. Invariant: a task pushed on `done` is completed by a thread that holds
// the lock after the push, because
//  - the pusher's push and try_lock and the holder's unlock and look at `done` are
//    all sequentially consistent: a try_lock that failed came before that unlock, so
//    the holder's look after it sees the push;
//  - the holder then takes the lock again if it can; if it cannot, the new holder's
//    own unlock looks again.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <ctime>

#include "task/task_impl.hpp"

namespace interlace::task {

using detail::Task;

namespace {
// Tries for the lock before a worker leaves its finished task to the holder.
constexpr int kCompleteSpin = 64;
}  // namespace

namespace detail {

void ExecMutex::unlock() noexcept {
  for (;;) {
    raw_.unlock();
    if (!ex_->done.load(std::memory_order_seq_cst)) return;
    if (!raw_.try_lock()) return;  // the new holder looks at `done` when it unlocks
    ex_->drain_done();
  }
}

bool futex_wait(std::atomic<uint32_t>& word, uint32_t seen, std::chrono::nanoseconds timeout) {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
  timespec ts{};
  timespec* tsp = nullptr;
  if (timeout.count() > 0) {
    ts.tv_sec = static_cast<time_t>(timeout.count() / 1000000000);
    ts.tv_nsec = static_cast<long>(timeout.count() % 1000000000);
    tsp = &ts;
  }
  const long r = syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, seen,
                         tsp, nullptr, 0);
  return !(r == -1 && errno == ETIMEDOUT);
}

void futex_wake(std::atomic<uint32_t>& word, int n) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, n, nullptr, nullptr,
          0);
}

}  // namespace detail

void Executor::Impl::push_ready_locked(Task* t) {
  std::lock_guard<detail::SpinLock> g(qmu);
  ready.push(t);
}

Task* Executor::Impl::pop_ready() {
  if (!ready.maybe_nonempty()) return nullptr;
  std::lock_guard<detail::SpinLock> g(qmu);
  return ready.pop();
}

void Executor::Impl::complete(Task* t, Task** successor, bool next) {
  Task* head = done.load(std::memory_order_relaxed);
  do {
    t->next = head;
  } while (!done.compare_exchange_weak(head, t, std::memory_order_seq_cst,
                                       std::memory_order_relaxed));
  // Wait a little for the lock (a spawner holds it for a few hundred nanoseconds), so
  // that the spawning thread, often the bottleneck, is not left all the completions.
  for (int i = 0; i < kCompleteSpin; ++i) {
    // Read before trying: a failed try still takes the line from the holder.
    if (!mu.is_locked() && mu.try_lock()) {
      if (next) ++spinning;  // counts as a worker about to take a queued task
      drain_done(successor);
      if (next) --spinning;
      mu.unlock();
      return;
    }
    if (!done.load(std::memory_order_relaxed)) return;  // the holder took it already
    detail::cpu_relax();
  }
  // The hand-off needs a try that failed (sequentially consistent), not only a look.
  if (mu.try_lock()) {
    drain_done(successor);
    mu.unlock();
  }
}

void Executor::Impl::drain_done(Task** successor) {
  Task* list = done.exchange(nullptr, std::memory_order_seq_cst);
  // The stack is newest first; complete in the order the bodies ended.
  Task* fifo = nullptr;
  while (list) {
    Task* n = list->next;
    list->next = fifo;
    fifo = list;
    list = n;
  }
  while (fifo) {
    Task* t = fifo;
    fifo = fifo->next;
    finish(t, successor);
  }
}

}  // namespace interlace::task
