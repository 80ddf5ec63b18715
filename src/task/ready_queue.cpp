// The ready queue: priorities, FIFO within one (docs/tasks.md has the policy measurement).
#include "task/task_impl.hpp"

namespace interlace::task::detail {

void ReadyQueue::push(Task* t) {
  ++size_;
  if (t->priority == 0) normal_.push(t);
  else if (t->priority > 0) high_[t->priority].push(t);
  else low_[t->priority].push(t);
}

Task* ReadyQueue::pop() {
  if (size_ == 0) return nullptr;
  --size_;
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
  if (t) --size_;
  return t;
}

}  // namespace interlace::task::detail
