// Workers, CPU slots and task completion (docs/tasks.md).
//  - `workers` slots: a thread runs task bodies only while it holds one. A worker whose
//    task blocks (blocking::Listener) gives its slot back, and an idle thread (or a
//    new one, up to max_threads) takes it, so blocked tasks cannot starve the pool.
//    When the wait ends the thread takes its slot back even if that oversubscribes;
//    the next worker to finish a task then sleeps until the count is right again.
//  - A worker that finds the queue empty polls it for kIdlePoll (holding its slot),
//    then sleeps on a futex (idle_seq).
#include <algorithm>

#include "interlace/core/log.hpp"
#include "task/task_impl.hpp"

namespace interlace::task {

using detail::Task;

namespace detail {

namespace {
thread_local Executor::Impl* t_impl = nullptr;
thread_local Task* t_task = nullptr;
thread_local Worker* t_worker = nullptr;
}  // namespace

Worker* current_worker() noexcept { return t_worker; }

Executor::Impl* current_impl() noexcept { return t_impl; }
Task* current_task() noexcept { return t_task; }
Task* parent_for(Executor::Impl* ex) noexcept {
  return (t_impl == ex && t_task) ? t_task : &ex->root;
}

}  // namespace detail

Task* Executor::Impl::alloc_task() {
  if (!free_list) {
    constexpr size_t kChunk = 64;
    chunks.emplace_back(new Task[kChunk]);
    for (size_t i = 0; i < kChunk; ++i) {
      chunks.back()[i].children = detail::FragmentMap(detail::FragmentMap::allocator_type(&node_pool));
      chunks.back()[i].next = free_list;
      free_list = &chunks.back()[i];
    }
  }
  Task* t = free_list;
  free_list = t->next;
  return t;
}

void Executor::Impl::drop_ref(Task* t) {
  if (--t->refs > 0) return;
  t->body = nullptr;
  t->cancelled = t->failed = t->marker = t->poisoned = false;
  t->cause = nullptr;
  t->errors.clear();
  t->child_index.clear();
  t->children.clear();
  t->signalled.store(0, std::memory_order_relaxed);
  t->next = free_list;
  free_list = t;
}

Task* Executor::Impl::spawn_locked(Task* parent, std::span<const Dep> deps,
                                   std::function<void()>&& body, int priority,
                                   const char* label, bool marker) {
  Task* t = alloc_task();
  t->body = std::move(body);
  t->parent = parent;
  t->priority = priority;
  t->label = label;
  t->marker = marker;
  t->id = ++next_id;
  t->live_id.store(t->id, std::memory_order_relaxed);
  t->live.store(1, std::memory_order_relaxed);
  t->pending = 1;
  t->refs = marker ? 2 : 1;  // a marker's waiter reads it after completion
  parent->live.fetch_add(1, std::memory_order_relaxed);
  detail::register_accesses(t, deps);
  if (!marker) {
    ++stats.spawned;
    ++in_flight;
  }
  if (--t->pending == 0) newly_ready.push_back(t);
  // Markers complete as soon as they are ready; everything else goes to the queue.
  for (size_t i = 0; i < newly_ready.size(); ++i) {
    Task* r = newly_ready[i];
    if (r->marker) drop_live(r);
    else push_ready_locked(r);
  }
  newly_ready.clear();
  wake_workers();
  return t;
}

void Executor::Impl::finish(Task* t, Task** successor) {
  if (t->cancelled) {
    ++stats.cancelled;
    t->failed = true;
  } else {
    ++stats.executed;
    if (t->thrown) {
      t->failed = true;
      t->cause = t->thrown;
      t->parent->errors.push_back(std::move(t->thrown));
      t->thrown = nullptr;
    }
  }
  drop_live(t);
  for (size_t i = 0; i < newly_ready.size(); ++i) {
    Task* r = newly_ready[i];
    if (r->marker) drop_live(r);  // may append more
    else if (successor && !*successor) *successor = r;
    else push_ready_locked(r);
  }
  newly_ready.clear();
  for (Task* r : requeue) push_ready_locked(r);
  requeue.clear();
  wake_workers();
}

// One end of t's body or of one of its children; at zero t is complete.
void Executor::Impl::drop_live(Task* t) {
  while (t) {
    const int now = t->live.fetch_sub(1, std::memory_order_acq_rel) - 1;
    if (now == 1) t->live.notify_all();  // a taskwait in t's body
    if (now > 0) return;
    if (!t->errors.empty()) {
      // Failures nobody waited for make t failed and travel up to its parent's taskwait.
      t->failed = true;
      if (!t->cause) t->cause = t->errors.front();
      auto& up = t->parent->errors;
      up.insert(up.end(), t->errors.begin(), t->errors.end());
      t->errors.clear();
    }
    detail::release_accesses(t, newly_ready, requeue);
    Task* parent = t->parent;
    if (t->marker) {
      t->signalled.store(1, std::memory_order_release);
      t->signalled.notify_all();
    } else if (--in_flight <= throttle_low) {
      throttle_off = false;
      if (throttled) {
        throttle_seq.fetch_add(1, std::memory_order_release);
        detail::futex_wake(throttle_seq, INT32_MAX);
      }
    }
    drop_ref(t);
    t = parent;
  }
}

void Executor::Impl::wake_workers() {
  // Polling workers hold a slot and take the first queued tasks themselves.
  long want = std::min<long>(static_cast<long>(ready.size()) - spinning, slots_free) - waking;
  for (; want > 0; --want) {
    if (idle - waking > 0) {
      ++waking;
      idle_seq.fetch_add(1, std::memory_order_release);
      detail::futex_wake(idle_seq, 1);
    } else if (static_cast<int>(threads.size()) < max_threads) {
      add_thread();
    } else {
      if (!warned_cap) {
        warned_cap = true;
        IL_LOG(warn, "task executor: " << max_threads
                     << " threads exist and the free cores wait for one: blocked tasks now "
                        "hold their cores (docs/tasks.md)");
      }
      return;
    }
  }
}

// Under mu. The new thread counts as idle and notified until it starts.
void Executor::Impl::add_thread() {
  worker_states.push_back(std::make_unique<detail::Worker>(this));
  detail::Worker* w = worker_states.back().get();
  ++idle;
  ++waking;
  try {
    threads.emplace_back([this, w] { worker_main(w); });
  } catch (const std::exception& e) {
    --idle;
    --waking;
    worker_states.pop_back();
    IL_LOG(warn, "task executor: cannot start a worker thread: " << e.what());
  }
}

void Executor::Impl::worker_main(detail::Worker* w) {
  blocking::set_thread_listener(w);
  detail::t_worker = w;
  {
    std::lock_guard<detail::ExecMutex> g(mu);
    --idle;
    --waking;
  }
  Task* successor = nullptr;
  Task** keep = policy == detail::Policy::fifo_successor ? &successor : nullptr;
  for (;;) {
    Task* t = successor;
    successor = nullptr;
    if (t) {
      bool requeue = slots_free.load(std::memory_order_relaxed) < 0;
      if (!requeue) {
        std::lock_guard<detail::SpinLock> q(qmu);
        requeue = ready.size() && ready.top_priority() > t->priority;
      }
      if (requeue) {  // oversubscribed, or something more urgent is queued
        std::lock_guard<detail::ExecMutex> g(mu);
        push_ready_locked(t);
        wake_workers();
        t = nullptr;
      }
    }
    if (!t) t = next_task(w);
    if (!t) break;
    run(t, keep, true);
  }
  blocking::set_thread_listener(nullptr);
}

Task* Executor::Impl::next_task(detail::Worker* w) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point give_up{};
  std::unique_lock<detail::ExecMutex> lk(mu, std::defer_lock);
  for (;;) {
    if (w->has_slot && slots_free.load(std::memory_order_relaxed) >= 0)
      if (Task* t = pop_ready()) return t;
    lk.lock();
    if (w->has_slot) {
      if (slots_free < 0) {  // oversubscribed after a wait ended: step aside
        ++slots_free;
        w->has_slot = false;
        lk.unlock();
        continue;
      }
      if (Task* t = pop_ready()) return t;
      // Poll a little before sleeping: a spawner slightly slower than the workers then
      // hands tasks over without a futex wake per spawn (docs/tasks.md, "Overhead").
      if (!stop) {
        const auto now = Clock::now();
        if (give_up == Clock::time_point{}) give_up = now + kIdlePoll;
        if (now < give_up) {
          ++spinning;
          lk.unlock();
          poll_ready(give_up);
          lk.lock();
          --spinning;
          lk.unlock();
          continue;
        }
      }
      ++slots_free;
      w->has_slot = false;
    }
    if (stop) return nullptr;
    if (slots_free > 0 && ready.size() > 0) {
      --slots_free;
      w->has_slot = true;
      give_up = {};
      lk.unlock();
      continue;
    }
    ++idle;
    const uint32_t seen = idle_seq.load(std::memory_order_acquire);
    lk.unlock();
    detail::futex_wait(idle_seq, seen);
    lk.lock();
    --idle;
    if (waking > 0) --waking;
    lk.unlock();
  }
}

// Unlocked polling of the queue's size until something is queued or `until`. The
// caller counts itself in `spinning` meanwhile, so that wake_workers() leaves that
// many queued tasks to it.
void Executor::Impl::poll_ready(std::chrono::steady_clock::time_point until) {
  for (unsigned i = 1;; ++i) {
    if (ready.maybe_nonempty()) return;
    detail::cpu_relax();
    if (i % 64 == 0) {
      if (std::chrono::steady_clock::now() >= until) return;
      // Past the first microseconds, let a thread sharing this core (the spawner, on
      // a machine with fewer cores than threads) have it.
      if (i >= 1024) std::this_thread::yield();
    }
  }
}

// Not under mu.
void Executor::Impl::run(Task* t, Task** successor, bool next) {
  if (!t->cancelled && !t->groups.empty()) {
    std::lock_guard<detail::ExecMutex> g(mu);
    if (!detail::try_take_groups(t)) return;  // parked
  }
  if (!t->cancelled) {
    std::function<void()> body = std::move(t->body);
    Executor::Impl* saved_impl = detail::t_impl;
    Task* saved_task = detail::t_task;
    detail::t_impl = this;
    detail::t_task = t;
    try {
      body();
    } catch (...) {
      t->thrown = std::current_exception();
    }
    detail::t_impl = saved_impl;
    detail::t_task = saved_task;
  }  // the captures die here, outside the lock
  complete(t, successor, next);
}

void Executor::Impl::block(detail::Worker* w) {
  std::lock_guard<detail::ExecMutex> g(mu);
  if (!w->has_slot) return;
  w->has_slot = false;
  w->lent = true;
  ++slots_free;
  ++stats.blocked;
  wake_workers();
}

void Executor::Impl::unblock(detail::Worker* w) {
  std::lock_guard<detail::ExecMutex> g(mu);
  if (!w->lent) return;
  w->lent = false;
  w->has_slot = true;
  --slots_free;
}

void Executor::Impl::throttle(std::unique_lock<detail::ExecMutex>& lk) {
  // Only threads that are not workers wait here: a worker waiting for tasks to finish
  // could be the one that has to run them.
  if (in_flight <= throttle_high || throttle_off) return;
  detail::Worker* w = detail::current_worker();
  if (w && w->ex == this) return;
  ++throttled;
  while (in_flight > throttle_low && !throttle_off) {
    const uint64_t before = in_flight;
    const uint32_t seen = throttle_seq.load(std::memory_order_acquire);
    lk.unlock();
    // No task finished for a while: something the spawner has yet to do may be what
    // the tasks wait for. Stop throttling until the count comes down on its own.
    const bool woken = detail::futex_wait(throttle_seq, seen, std::chrono::milliseconds(50));
    lk.lock();
    if (!woken && in_flight >= before) throttle_off = true;
  }
  --throttled;
}

void Executor::Impl::shutdown() {
  std::vector<std::thread> all;
  {
    std::lock_guard<detail::ExecMutex> g(mu);
    stop = true;
    all.swap(threads);
    idle_seq.fetch_add(1, std::memory_order_release);
  }
  detail::futex_wake(idle_seq, INT32_MAX);
  for (auto& th : all) th.join();
}

}  // namespace interlace::task
