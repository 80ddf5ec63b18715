// The Executor's public calls (interlace/task/task.hpp): spawn, the waits, errors.
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <string>

#include "interlace/core/config.hpp"
#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/engine/context.hpp"
#include "task/task_impl.hpp"

namespace interlace::task {

using detail::Task;

const char* access_name(Access a) noexcept {
  switch (a) {
    case Access::in: return "in";
    case Access::out: return "out";
    case Access::inout: return "inout";
    case Access::commutative: return "commutative";
    case Access::concurrent: return "concurrent";
  }
  return "unknown";
}

namespace {

// Queued tasks a waiting task looks through for its own descendants.
constexpr int kHelpScan = 64;

std::string addr_text(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

bool valid_access(Access a) {
  return static_cast<uint8_t>(a) <= static_cast<uint8_t>(Access::concurrent);
}

}  // namespace

Dep make_dep(const void* addr, long long bytes, Access access) {
  if (bytes < 0)
    throw_error(Errc::invalid_argument, "task dependency on " + addr_text(addr) + ": length " +
                                            std::to_string(bytes) + " is negative");
  Dep d{addr, static_cast<size_t>(bytes), access};
  detail::check_deps(std::span<const Dep>(&d, 1));
  return d;
}

void detail::check_deps(std::span<const Dep> deps) {
  for (size_t i = 0; i < deps.size(); ++i) {
    const Dep& d = deps[i];
    const uintptr_t a = reinterpret_cast<uintptr_t>(d.addr);
    // The message is built only for a bad Dep: this runs on every spawn.
    if (valid_access(d.access) && (d.addr || !d.bytes) && d.bytes <= UINTPTR_MAX - a) continue;
    const std::string which = "task dependency " + std::to_string(i);
    if (!valid_access(d.access))
      throw_error(Errc::invalid_argument,
                  which + ": access " + std::to_string(static_cast<int>(d.access)) +
                      " is not in, out, inout, commutative or concurrent");
    if (!d.addr && d.bytes)
      throw_error(Errc::invalid_argument, which + ": null address with length " +
                                              std::to_string(d.bytes));
    throw_error(Errc::invalid_argument,
                which + " on " + addr_text(d.addr) + ": length " + std::to_string(d.bytes) +
                    " runs past the end of the address space (a negative length?)");
  }
}

void detail::rethrow_errors(Task* t, std::unique_lock<detail::ExecMutex>& lk) {
  if (t->poisoned) {
    clear_poison(t);
    t->poisoned = false;
  }
  if (t->errors.empty()) return;
  std::vector<std::exception_ptr> errs;
  errs.swap(t->errors);
  lk.unlock();
  if (errs.size() == 1) std::rethrow_exception(errs[0]);
  const std::string more =
      " (and " + std::to_string(errs.size() - 1) + " more task(s) failed)";
  try {
    std::rethrow_exception(errs[0]);
  } catch (const Error& e) {
    throw Error(e.code(), e.what() + more);
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what() + more);
  }
}

int default_workers() {
  const int n = task_workers_from_env();
  return n > 0 ? n : usable_cpus();
}

Executor::Impl::Impl(Executor* s, Options o) : self(s), opts(o) {
  if (opts.workers < 0 || opts.workers > kMaxTaskWorkers)
    throw_error(Errc::invalid_argument, "task executor: workers=" + std::to_string(opts.workers) +
                                            " (expected 0 for the default, or 1 to " +
                                            std::to_string(kMaxTaskWorkers) + ")");
  workers = opts.workers > 0 ? opts.workers : default_workers();
  // Room for blocked tasks to lend their cores (docs/tasks.md, "Blocking").
  max_threads = workers + 256;
  slots_free = workers;
  policy = detail::policy();
  ready.lifo = policy == detail::Policy::lifo;
  if (const uint64_t per = detail::throttle_per_worker()) {
    throttle_high = per * static_cast<uint64_t>(workers);
    throttle_low = throttle_high / 2;
  } else {
    throttle_high = throttle_low = UINT64_MAX;
  }
  root.live.store(1, std::memory_order_relaxed);  // never completes
  root.refs = 1;
  root.children = detail::FragmentMap(detail::FragmentMap::allocator_type(&node_pool));
  if (opts.runtime) opts.runtime->context().start_progress_thread();
  std::lock_guard<detail::ExecMutex> g(mu);
  for (int i = 0; i < workers; ++i) add_thread();
}

Executor::Executor(Options opts) : impl_(std::make_unique<Impl>(this, opts)) {}

Executor::~Executor() {
  try {
    impl_->wait_children(&impl_->root);
  } catch (const std::exception& e) {
    IL_LOG(warn, "task executor destroyed with an unobserved task failure: " << e.what());
  } catch (...) {
    IL_LOG(warn, "task executor destroyed with an unobserved task failure");
  }
  impl_->shutdown();
}

void Executor::spawn(std::span<const Dep> deps, std::function<void()> body, SpawnOptions opts) {
  if (!body) throw_error(Errc::invalid_argument, "task spawn: empty body");
  detail::check_deps(deps);
  Task* parent = detail::parent_for(impl_.get());
  std::unique_lock<detail::ExecMutex> lk(impl_->mu);
  impl_->spawn_locked(parent, deps, std::move(body), opts.priority, opts.label, false);
  impl_->throttle(lk);
}

void Executor::Impl::wait_children(Task* t) {
  detail::Worker* w = detail::current_worker();
  const bool can_help = w && w->ex == this && t != &root;
  for (;;) {
    if (t->live.load(std::memory_order_acquire) <= 1) break;
    if (can_help && w->has_slot && slots_free.load(std::memory_order_relaxed) >= 0) {
      // Run t's own ready descendants on this thread first (tied to t, so nothing
      // unrelated delays t's resumption): fewer threads block, none is created.
      Task* c;
      {
        std::lock_guard<detail::SpinLock> q(qmu);
        c = ready.take_descendant(t, kHelpScan);
      }
      if (c) {
        run(c);
        continue;
      }
    }
    blocking::Scope lend;  // a worker waiting here lends its core
    int v = t->live.load(std::memory_order_acquire);
    if (v > 1) t->live.wait(v, std::memory_order_acquire);
  }
  std::unique_lock<detail::ExecMutex> lk(mu);
  detail::rethrow_errors(t, lk);
}

void Executor::taskwait() { impl_->wait_children(detail::parent_for(impl_.get())); }

void Executor::taskwait_on(std::span<const Dep> deps) {
  detail::check_deps(deps);
  // Waiting for readers is only needed to write: `in` waits for earlier writers, every
  // other access for every earlier conflicting sibling.
  std::vector<Dep> as_marker(deps.begin(), deps.end());
  for (Dep& d : as_marker)
    if (d.access != Access::in) d.access = Access::inout;
  Task* parent = detail::parent_for(impl_.get());
  Task* m;
  {
    std::lock_guard<detail::ExecMutex> g(impl_->mu);
    m = impl_->spawn_locked(parent, as_marker, nullptr, 0, nullptr, true);
  }
  if (!m->signalled.load(std::memory_order_acquire)) {
    blocking::Scope lend;
    while (!m->signalled.load(std::memory_order_acquire)) m->signalled.wait(0, std::memory_order_acquire);
  }
  std::exception_ptr cause;
  {
    std::lock_guard<detail::ExecMutex> g(impl_->mu);
    if (m->cancelled) {
      cause = m->cause;
      // This wait reports the failure; the parent's taskwait need not again.
      auto& errs = parent->errors;
      for (auto it = errs.begin(); it != errs.end(); ++it)
        if (*it == cause) { errs.erase(it); break; }
    }
    impl_->drop_ref(m);
  }
  if (cause) std::rethrow_exception(cause);
}

int Executor::workers() const noexcept { return impl_->workers; }

Stats Executor::stats() const {
  std::lock_guard<detail::ExecMutex> g(impl_->mu);
  Stats s = impl_->stats;
  s.threads = static_cast<int>(impl_->worker_states.size());
  return s;
}

Executor* Executor::current() noexcept {
  Impl* i = detail::current_impl();
  return i ? i->self : nullptr;
}

bool Executor::in_task() noexcept { return detail::current_task() != nullptr; }

Executor& process_executor() {
  static Executor ex;
  return ex;
}

}  // namespace interlace::task
