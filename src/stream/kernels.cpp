// Kernel threads and the slow (sleeping) path of LocalStream.
#include "interlace/stream/kernels.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

namespace interlace::stream {
namespace detail {
namespace {

// The kernels started by one run_kernels call. A failing kernel cancels the
// group; every kernel asleep in a LocalStream is woken through the words it
// enrolled while asleep, so none of them keeps run_kernels from returning.
class KernelGroup {
 public:
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  void cancel(size_t by) {
    std::lock_guard<std::mutex> g(m_);
    if (!cancelled_.exchange(true)) first_failed_ = by;
    for (auto* w : sleeping_) {
      w->fetch_add(1, std::memory_order_release);
      w->notify_all();
    }
  }
  size_t first_failed() const { return first_failed_; }
  void enroll(std::atomic<uint32_t>* w) {
    std::lock_guard<std::mutex> g(m_);
    sleeping_.push_back(w);
  }
  void leave(std::atomic<uint32_t>* w) {
    std::lock_guard<std::mutex> g(m_);
    auto it = std::find(sleeping_.begin(), sleeping_.end(), w);
    if (it != sleeping_.end()) sleeping_.erase(it);
  }

 private:
  std::mutex m_;
  std::vector<std::atomic<uint32_t>*> sleeping_;
  std::atomic<bool> cancelled_{false};
  size_t first_failed_ = 0;
};

thread_local KernelGroup* t_group = nullptr;

[[noreturn]] void throw_cancelled(const KernelGroup& g) {
  throw_error(Errc::cancelled, "kernel stopped because kernel " +
                                   std::to_string(g.first_failed()) + " of run_kernels failed");
}

}  // namespace

void block_on(std::atomic<uint32_t>& word, uint32_t seen) {
  KernelGroup* g = t_group;
  if (!g) {
    word.wait(seen, std::memory_order_acquire);
    return;
  }
  // Enrol before checking the flag: a cancel that ran before enrolment set the
  // flag first (we see it), one that runs after finds us enrolled (wakes us).
  g->enroll(&word);
  if (g->cancelled()) {
    g->leave(&word);
    throw_cancelled(*g);
  }
  word.wait(seen, std::memory_order_acquire);
  g->leave(&word);
  if (g->cancelled()) throw_cancelled(*g);
}

void yield() noexcept { std::this_thread::yield(); }

void wake(std::atomic<uint32_t>& word) {
  word.fetch_add(1, std::memory_order_release);
  word.notify_all();
}

void bad_capacity(size_t capacity) {
  throw_error(Errc::invalid_argument, "LocalStream capacity " + std::to_string(capacity) +
                                          " is outside 1..2^30");
}

}  // namespace detail

void run_kernels(std::vector<Kernel> kernels) {
  for (size_t i = 0; i < kernels.size(); ++i)
    if (!kernels[i])
      throw_error(Errc::invalid_argument, "run_kernels: kernel " + std::to_string(i) + " is empty");
  detail::KernelGroup group;
  std::vector<std::exception_ptr> errors(kernels.size());
  std::vector<std::thread> threads;
  threads.reserve(kernels.size());
  std::exception_ptr start_error;
  for (size_t i = 0; i < kernels.size(); ++i) {
    try {
      threads.emplace_back([&, i] {
        detail::t_group = &group;
        try {
          kernels[i]();
        } catch (...) {
          errors[i] = std::current_exception();
          group.cancel(i);
        }
        detail::t_group = nullptr;
      });
    } catch (...) {
      // Out of threads: stop the kernels already running rather than leave
      // them blocked on a stream whose other end never starts.
      start_error = std::current_exception();
      group.cancel(i);
      break;
    }
  }
  for (auto& t : threads) t.join();
  if (start_error) std::rethrow_exception(start_error);
  if (group.cancelled()) std::rethrow_exception(errors[group.first_failed()]);
}

}  // namespace interlace::stream
