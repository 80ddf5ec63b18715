// Workers, CPU slots and task completion (docs/tasks.md).
//  - `workers` slots: a thread runs task bodies only while it holds one. A worker whose
//    task blocks (blocking::Listener) gives its slot back, and an idle thread (or a
//    new one, up to max_threads) takes it, so blocked tasks cannot starve the pool.
//    When the wait ends the thread takes its slot back even if that oversubscribes;
//    the next worker to finish a task then sleeps until the count is right again.
//  - Idle threads sleep on a condition variable; nothing spins.
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
  t->cancelled = t->failed = t->marker = false;
  t->cause = nullptr;
  t->errors.clear();
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
  if (!marker) ++stats.spawned;
  if (--t->pending == 0) newly_ready.push_back(t);
  // Markers complete as soon as they are ready; everything else goes to the queue.
  for (size_t i = 0; i < newly_ready.size(); ++i) {
    Task* r = newly_ready[i];
    if (r->marker) drop_live(r);
    else ready.push(r);
  }
  newly_ready.clear();
  wake_workers();
  return t;
}

void Executor::Impl::finish(Task* t) {
  drop_live(t);
  for (size_t i = 0; i < newly_ready.size(); ++i) {
    Task* r = newly_ready[i];
    if (r->marker) drop_live(r);  // may append more
    else ready.push(r);
  }
  newly_ready.clear();
  for (Task* r : requeue) ready.push(r);
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
    }
    drop_ref(t);
    t = parent;
  }
}

void Executor::Impl::wake_workers() {
  long want = std::min<long>(static_cast<long>(ready.size()), slots_free) - waking;
  for (; want > 0; --want) {
    if (idle - waking > 0) {
      ++waking;
      idle_cv.notify_one();
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
  std::unique_lock<std::mutex> lk(mu);
  --idle;
  --waking;
  while (Task* t = next_task(w, lk)) run(t, lk);
  blocking::set_thread_listener(nullptr);
}

Task* Executor::Impl::next_task(detail::Worker* w, std::unique_lock<std::mutex>& lk) {
  for (;;) {
    if (w->has_slot) {
      if (slots_free < 0) {  // oversubscribed after a wait ended: step aside
        ++slots_free;
        w->has_slot = false;
        continue;
      }
      if (Task* t = ready.pop()) return t;
      ++slots_free;
      w->has_slot = false;
    }
    if (stop) return nullptr;
    if (slots_free > 0 && ready.size() > 0) {
      --slots_free;
      w->has_slot = true;
      continue;
    }
    ++idle;
    idle_cv.wait(lk);
    --idle;
    if (waking > 0) --waking;
  }
}

void Executor::Impl::run(Task* t, std::unique_lock<std::mutex>& lk) {
  if (!t->cancelled && !t->groups.empty() && !detail::try_take_groups(t)) return;  // parked
  std::function<void()> body = std::move(t->body);
  const bool skip = t->cancelled;
  lk.unlock();
  std::exception_ptr err;
  if (!skip) {
    Executor::Impl* saved_impl = detail::t_impl;
    Task* saved_task = detail::t_task;
    detail::t_impl = this;
    detail::t_task = t;
    try {
      body();
    } catch (...) {
      err = std::current_exception();
    }
    detail::t_impl = saved_impl;
    detail::t_task = saved_task;
  }
  body = nullptr;  // the captures die outside the lock
  lk.lock();
  if (skip) {
    ++stats.cancelled;
    t->failed = true;
  } else {
    ++stats.executed;
    if (err) {
      t->failed = true;
      t->cause = err;
      t->parent->errors.push_back(err);
    }
  }
  finish(t);
}

void Executor::Impl::block(detail::Worker* w) {
  std::lock_guard<std::mutex> g(mu);
  if (!w->has_slot) return;
  w->has_slot = false;
  w->lent = true;
  ++slots_free;
  ++stats.blocked;
  wake_workers();
}

void Executor::Impl::unblock(detail::Worker* w) {
  std::lock_guard<std::mutex> g(mu);
  if (!w->lent) return;
  w->lent = false;
  w->has_slot = true;
  --slots_free;
}

void Executor::Impl::shutdown() {
  std::vector<std::thread> all;
  {
    std::lock_guard<std::mutex> g(mu);
    stop = true;
    all.swap(threads);
  }
  idle_cv.notify_all();
  for (auto& th : all) th.join();
}

}  // namespace interlace::task
