// Dependencies among siblings (OmpSs-2 semantics, docs/tasks.md): an interval map of
// address fragments per parent, each holding its current access epoch.
//  - A reader (or a concurrent / commutative access) that matches the current epoch's
//    kind joins it and depends only on the epoch before; any other access starts a new
//    epoch that depends on every member of the current one.
//  - Fragments are split at each new access's bounds, so a partial overlap orders
//    exactly the bytes in common. A fragment whose members all finished stays (an
//    idle one: its next access finds it by address in one probe of the exact-address
//    index and needs no insertion) while the map holds at most kKeepIdle fragments;
//    beyond that it is dropped when its last member finishes, so the map is bounded
//    by kKeepIdle plus the regions in flight. An idle fragment orders nothing: every
//    Ref in it is dead.
#include <algorithm>

#include "task/task_impl.hpp"

namespace interlace::task::detail {
namespace {

// Idle fragments kept per parent (about 150 bytes each, plus the index's 32).
constexpr size_t kKeepIdle = 8192;

bool live(const Ref& r) { return r.task->live_id.load(std::memory_order_relaxed) == r.id; }

void add_edge(Task* from, Task* to) {
  if (from == to || from->edge_stamp == to->id) return;
  from->edge_stamp = to->id;  // one edge per pair, however many fragments they share
  from->successors.push_back(to);
  ++to->pending;
}

template <class List>
void edges_from(const List& refs, size_t first, Task* t) {
  for (size_t i = first; i < refs.size(); ++i)
    if (live(refs[i])) add_edge(refs[i].task, t);
}

Kind kind_of(Access a) {
  switch (a) {
    case Access::in: return Kind::read;
    case Access::concurrent: return Kind::concurrent;
    case Access::commutative: return Kind::commutative;
    default: return Kind::write;
  }
}

void add_group(Task* t, const std::shared_ptr<CommGroup>& g) {
  for (auto& have : t->groups)
    if (have == g) return;
  t->groups.push_back(g);
}

// One access of t on one fragment (which lies inside the access).
void apply(Fragment& f, Task* t, Kind k, std::shared_ptr<CommGroup>& fresh_group) {
  if (!f.members.empty() && f.members.back().task == t && f.members.back().id == t->id) {
    // A second access of t to these bytes: equal kinds add nothing; different ones
    // (in + concurrent, ...) combine into exclusive access, as in + out is inout.
    if (k == f.kind) return;
    k = Kind::write;
  }
  if (f.poison && conflicts(f.poison_kind, k) && !t->cancelled) {
    t->cancelled = true;
    t->cause = f.poison;
  }
  const bool joins = k != Kind::write && f.kind == k;
  if (f.done_prefix > 0 && f.done_prefix * 2 >= f.members.size()) {
    // Mostly finished members (an idle fragment, or a long run of readers): drop them
    // so the list does not grow with every access. When every member finished, so
    // did the epoch before (each member depended on it).
    if (f.done_prefix == f.members.size()) f.previous.clear();
    f.members.drop_front(f.done_prefix);
    f.done_prefix = 0;
  }
  if (joins) {
    edges_from(f.previous, 0, t);
    f.members.push_back({t, t->id});
    if (k == Kind::commutative) add_group(t, f.group);
    return;
  }
  edges_from(f.members, f.done_prefix, t);
  // Only the unfinished members matter to later joiners.
  f.previous.clear();
  for (size_t i = f.done_prefix; i < f.members.size(); ++i)
    if (live(f.members[i]) && f.members[i].task != t) f.previous.push_back(f.members[i]);
  f.members.clear();
  f.members.push_back({t, t->id});
  f.done_prefix = 0;
  f.kind = k;
  if (k == Kind::commutative) {
    if (!fresh_group) fresh_group = std::make_shared<CommGroup>();
    f.group = fresh_group;
    add_group(t, f.group);
  } else {
    f.group.reset();
  }
}

// First fragment whose end is above `a` (it may start below a).
FragmentMap::iterator first_overlap(FragmentMap& map, FragmentIndex& index, uintptr_t a) {
  if (FragmentMap::iterator* hit = index.find(a)) return *hit;  // starts at a
  auto it = map.upper_bound(a);
  if (it != map.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > a) return prev;
  }
  return it;
}

}  // namespace

void register_accesses(Task* t, std::span<const Dep> deps) {
  FragmentMap& map = t->parent->children;
  FragmentIndex& index = t->parent->child_index;
  for (const Dep& d : deps) {
    if (d.bytes == 0) continue;
    const uintptr_t a = reinterpret_cast<uintptr_t>(d.addr), b = a + d.bytes;
    const Kind k = kind_of(d.access);
    std::shared_ptr<CommGroup> fresh_group;
    auto it = first_overlap(map, index, a);
    uintptr_t pos = a;
    while (pos < b) {
      if (it == map.end() || it->first > pos) {
        // A gap: a new fragment up to the next one (or b).
        const uintptr_t end = (it == map.end()) ? b : std::min(b, it->first);
        it = map.emplace_hint(it, std::piecewise_construct, std::forward_as_tuple(pos),
                              std::forward_as_tuple());
        it->second.end = end;
        index.insert(pos, it);
      } else if (it->first < pos) {
        // Starts below the access: split at pos.
        Fragment tail = it->second;
        it->second.end = pos;
        it = map.emplace_hint(std::next(it), pos, std::move(tail));
        index.insert(pos, it);
      }
      if (it->second.end > b) {
        Fragment tail = it->second;
        it->second.end = b;
        index.insert(b, map.emplace_hint(std::next(it), b, std::move(tail)));
      }
      apply(it->second, t, k, fresh_group);
      pos = it->second.end;
      if (pos < b) ++it;
    }
    t->ranges.push_back({a, b, k});
  }
}

void release_accesses(Task* t, std::vector<Task*>& ready, std::vector<Task*>& requeue) {
  t->live_id.store(0, std::memory_order_relaxed);
  for (Task* s : t->successors) {
    if (t->failed && !s->cancelled) {
      s->cancelled = true;
      s->cause = t->cause;
    }
    if (--s->pending == 0) ready.push_back(s);
  }
  t->successors.clear();
  FragmentMap& map = t->parent->children;
  FragmentIndex& index = t->parent->child_index;
  for (const Range& r : t->ranges) {
    for (auto it = first_overlap(map, index, r.begin); it != map.end() && it->first < r.end;) {
      Fragment& f = it->second;
      while (f.done_prefix < f.members.size() && !live(f.members[f.done_prefix])) ++f.done_prefix;
      if (t->failed && !f.poison) {
        f.poison = t->cause;
        f.poison_kind = r.kind;
        t->parent->poisoned = true;
      }
      if (f.done_prefix < f.members.size() || f.poison || map.size() <= kKeepIdle) {
        ++it;
      } else {  // nothing in flight touches these bytes any more
        index.erase(it->first);
        it = map.erase(it);
      }
    }
  }
  t->ranges.clear();
  for (auto& g : t->groups) {
    if (g->owner == t) {
      g->owner = nullptr;
      requeue.insert(requeue.end(), g->waiters.begin(), g->waiters.end());
      g->waiters.clear();
    }
  }
  t->groups.clear();
}

void clear_poison(Task* t) {
  for (auto it = t->children.begin(); it != t->children.end();) {
    Fragment& f = it->second;
    if (!f.poison) { ++it; continue; }
    f.poison = nullptr;
    while (f.done_prefix < f.members.size() && !live(f.members[f.done_prefix])) ++f.done_prefix;
    if (f.done_prefix == f.members.size()) {
      t->child_index.erase(it->first);
      it = t->children.erase(it);
    } else {
      ++it;
    }
  }
}

bool try_take_groups(Task* t) {
  for (auto& g : t->groups) {
    if (g->owner && g->owner != t) {
      g->waiters.push_back(t);
      return false;
    }
  }
  for (auto& g : t->groups) g->owner = t;
  return true;
}

}  // namespace interlace::task::detail
