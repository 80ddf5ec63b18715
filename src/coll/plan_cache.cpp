// The plan cache: a rank that repeats a collective with the same arguments (the usual
// case: a training loop, a solver's residual allreduce) reuses the schedule and Run of
// the first call instead of consulting the registry, building a DAG and allocating a
// Run each time; a small call then costs a key comparison and one control block.
// Only built-in algorithms are cached: their builders are pure functions of Args and
// write every scratch byte before reading it, so a schedule can run again as is.
// User builders (C++ or Python) run on every call, as documented.
#include <algorithm>
#include <mutex>

#include "coll/executor.hpp"
#include "coll/registry.hpp"

namespace interlace::coll {

namespace {

using Guard = std::lock_guard<engine::OptionalLock>;
constexpr size_t kMaxPlans = 32;  // per rank; a linear scan over them is a few ns
// Plans keep their scratch memory; a large collective gains nothing from caching (its
// transfer dwarfs building the schedule), so its scratch is not kept alive.
constexpr size_t kMaxPlanScratch = 256 * 1024;

// The Run belongs to its Plan: the shared_ptr that lends it to a call deletes nothing.
struct Keep {
  void operator()(Run*) const noexcept {}
};

// Places that shared_ptr's control block in the Plan (a Run is lent to one call at a
// time, so one slot suffices and a call costs no malloc). Deallocation is the control
// block's last act: only then is the Run marked free for the next call, and then its
// communicator dropped. That last reference may end the runtime, and this Plan with
// it, so nothing is touched afterwards.
template <class T>
struct PlanSlot {
  using value_type = T;
  Plan* plan;
  explicit PlanSlot(Plan* p) noexcept : plan(p) {}
  template <class U>
  PlanSlot(const PlanSlot<U>& o) noexcept : plan(o.plan) {}  // NOLINT: rebinding
  T* allocate(size_t n) {
    static_assert(sizeof(T) <= sizeof(Plan::control) && alignof(T) <= alignof(std::max_align_t));
    (void)n;  // always 1: one control block
    return reinterpret_cast<T*>(plan->control);
  }
  void deallocate(T*, size_t) noexcept {
    Run& r = *plan->run;
    if (r.error) {  // a failed run keeps cancelled p2p requests, which hold the communicator
      for (auto& q : r.reqs) q = interlace::Request{};
      r.wire.clear();
    }
    std::shared_ptr<groups::CommState> last = std::move(r.comm);
    r.in_use.store(false, std::memory_order_release);
  }
  template <class U>
  bool operator==(const PlanSlot<U>& o) const noexcept { return plan == o.plan; }
};

bool cacheable(const Args& a) { return a.op.is_builtin() && a.counts.empty() && a.rcounts.empty(); }

bool same(const PlanKey& k, const groups::CommState& c, const Args& a, const std::string& requested,
          uint64_t generation) {
  return k.comm == c.id && k.sendbuf == a.sendbuf && k.recvbuf == a.recvbuf && k.count == a.count &&
         k.kind == a.kind && k.dt == a.dt && k.op == a.op.builtin() && k.root == a.root &&
         k.rank == a.rank && k.size == a.size &&
         k.segment_bytes == a.segment_bytes && k.generation == generation && k.algorithm == requested;
}

Plan* find_plan(CollState& st, const groups::CommState& c, const Args& a, const std::string& requested) {
  const uint64_t gen = registry_generation();
  for (auto& p : st.plans)
    if (same(p->key, c, a, requested, gen)) return p.get();
  return nullptr;
}

// Starts a plan's Run for one call (the Run is idle; the context lock is held).
Request start_plan(CollState& st, Plan& p, const std::shared_ptr<groups::CommState>& c) {
  Run& r = *p.run;
  r.in_use.store(true, std::memory_order_relaxed);
  if (r.error) {  // the last call failed: drop what it left behind
    for (auto& q : r.reqs) q = interlace::Request{};
    r.wire.clear();
    r.error = nullptr;
  }
  r.comm = c;
  r.seq = (*p.seq)++;
  std::fill(r.state.begin(), r.state.end(), uint8_t{0});
  r.first_open = 0;
  r.done = false;
  p.last_use = ++st.plan_clock;
  std::shared_ptr<Run> sp(&r, Keep{}, PlanSlot<Run>(&p));
  advance(r);
  if (!r.done) st.active.push_back(sp);
  return Request(std::move(sp));
}

// Room for one more plan: evicts the least recently used idle plan when full.
std::unique_ptr<Plan>* free_slot(CollState& st) {
  if (st.plans.size() < kMaxPlans) return &st.plans.emplace_back();
  std::unique_ptr<Plan>* victim = nullptr;
  for (auto& p : st.plans)
    if (!p->run->in_use.load(std::memory_order_acquire) && (!victim || p->last_use < (*victim)->last_use))
      victim = &p;
  return victim;  // null: every plan is in flight
}

}  // namespace

Request reuse_plan(const std::shared_ptr<groups::CommState>& c, Args& a, const std::string& requested,
                   bool eligible) {
  engine::Context& ctx = *c->rt->ctx;
  Guard g(ctx.lock());
  CollState& st = CollState::of(ctx);
  if (a.segment_bytes == 0) a.segment_bytes = st.segment_bytes;
  if (!eligible || !cacheable(a)) return {};
  Plan* p = find_plan(st, *c, a, requested);
  // Busy: the same call is still in flight (two ibarriers, say); run this one uncached.
  if (!p || p->run->in_use.load(std::memory_order_acquire)) return {};
  return start_plan(st, *p, c);
}

Request launch_cached(const std::shared_ptr<groups::CommState>& c, const Args& a, const std::string& requested,
                      std::shared_ptr<Schedule> s, std::string algorithm) {
  engine::Context& ctx = *c->rt->ctx;
  Guard g(ctx.lock());
  CollState& st = CollState::of(ctx);
  std::unique_ptr<Plan>* slot = nullptr;
  if (cacheable(a) && s->scratch_bytes() <= kMaxPlanScratch && !find_plan(st, *c, a, requested))
    slot = free_slot(st);
  if (!slot) return launch(c, std::move(s), a.kind, std::move(algorithm));
  auto p = std::make_unique<Plan>();
  p->key = PlanKey{c->id,   registry_generation(), a.sendbuf, a.recvbuf, a.count, a.segment_bytes,
                   a.root,  a.rank,  a.size,  a.kind,   a.dt,    a.op.builtin(), requested};
  p->seq = &st.seq[c->id];  // unordered_map values keep their address
  p->run = std::make_unique<Run>();
  Run& r = *p->run;
  r.owner = &st;
  r.kind = a.kind;
  r.algorithm = std::move(algorithm);
  r.state.assign(s->steps(), 0);
  r.reqs.resize(s->steps());
  r.sched = std::move(s);
  *slot = std::move(p);
  return start_plan(st, **slot, c);
}

}  // namespace interlace::coll
