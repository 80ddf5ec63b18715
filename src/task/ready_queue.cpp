// The ready queue: priorities, FIFO within one (docs/tasks.md has the policy measurement).
#include "task/task_impl.hpp"

namespace interlace::task::detail {

namespace {
std::atomic<Policy> g_policy{Policy::fifo};
constexpr uint64_t kDefaultThrottlePerWorker = 1024;
std::atomic<uint64_t> g_throttle{kDefaultThrottlePerWorker};
}

void set_policy(Policy p) noexcept { g_policy.store(p); }
void set_throttle_per_worker(uint64_t n) noexcept { g_throttle.store(n); }
uint64_t throttle_per_worker() noexcept { return g_throttle.load(); }
Policy policy() noexcept { return g_policy.load(); }

void ReadyQueue::push(Task* t) {
  add_size(1);
  Fifo& f = t->priority == 0 ? normal_ : t->priority > 0 ? high_[t->priority] : low_[t->priority];
  if (lifo) f.push_front(t);
  else f.push(t);
}

Task* ReadyQueue::pop() {
  if (size() == 0) return nullptr;
  add_size(-1);
  if (!high_.empty()) {
    auto it = high_.begin();
    Task* t = it->second.pop();
    if (it->second.empty()) high_.erase(it);
    return t;
  }
  if (!normal_.empty()) return normal_.pop();
  auto it = low_.begin();
  Task* t = it->second.pop();
  if (it->second.empty()) low_.erase(it);
  return t;
}

namespace {
bool descends_from(const Task* t, const Task* ancestor) {
  for (const Task* p = t->parent; p; p = p->parent)
    if (p == ancestor) return true;
  return false;
}
}  // namespace

Task* Fifo::take_descendant(const Task* ancestor, int* budget) {
  Task* prev = nullptr;
  for (Task* t = head; t && *budget > 0; prev = t, t = t->next, --*budget) {
    if (!descends_from(t, ancestor)) continue;
    if (prev) prev->next = t->next; else head = t->next;
    if (tail == t) tail = prev;
    return t;
  }
  return nullptr;
}

Task* ReadyQueue::take_descendant(const Task* ancestor, int limit) {
  Task* t = nullptr;
  for (auto it = high_.begin(); !t && limit > 0 && it != high_.end(); ++it) {
    if ((t = it->second.take_descendant(ancestor, &limit)) && it->second.empty()) high_.erase(it);
    if (t) break;
  }
  if (!t && limit > 0) t = normal_.take_descendant(ancestor, &limit);
  for (auto it = low_.begin(); !t && limit > 0 && it != low_.end(); ++it) {
    if ((t = it->second.take_descendant(ancestor, &limit)) && it->second.empty()) low_.erase(it);
    if (t) break;
  }
  if (t) add_size(-1);
  return t;
}

}  // namespace interlace::task::detail
