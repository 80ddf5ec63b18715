// Internal: the single-rank task runtime's state (docs/tasks.md).
//  - One lock per Executor (mu) guards everything below except the atomics and the
//    ready queue: dependency registration, release, the task pool and the CPU slots.
//    The ready queue has its own short lock (qmu); pushes hold both, pops only qmu.
//  - Completion is delegated: a worker whose task ended pushes it on `done` (lock-free)
//    and completes it itself only if mu is free; otherwise the holder completes it
//    when it unlocks (ExecMutex::unlock). So a spawner and the workers do not hand mu
//    back and forth once per task, and the dependency map stays in one core's cache
//    (docs/tasks.md, "Overhead").
//  - Tasks come from a pool owned by the Executor and are never freed before it, so a
//    Ref {task, id} stays readable after the task finished: it is live while
//    task->live_id still equals id.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "interlace/core/blocking.hpp"
#include "interlace/task/task.hpp"
#include "task/addr_index.hpp"
#include "task/small.hpp"
#include "task/spin_lock.hpp"

namespace interlace::task::detail {

struct Task;

struct Ref {
  Task* task;
  uint64_t id;
};

enum class Kind : uint8_t { none, read, write, concurrent, commutative };
// Whether an access of kind b after one of kind a must wait for it.
inline bool conflicts(Kind a, Kind b) { return a != b || a == Kind::write; }

// Members of one commutative epoch never run at once: a task takes every group of its
// commutative accesses before its body runs, or parks on the first busy one.
struct CommGroup {
  Task* owner = nullptr;
  std::vector<Task*> waiters;
};

// One address range with the same access history among the siblings of one parent.
struct Fragment {
  uintptr_t end = 0;
  Kind kind = Kind::none;
  Kind poison_kind = Kind::none;
  uint32_t done_prefix = 0;   // members[0..done_prefix) are known finished
  SmallVec<Ref, 2> members;   // the current epoch
  SmallVec<Ref, 2> previous;  // the epoch before it (joiners depend on these)
  std::shared_ptr<CommGroup> group;
  // A failed task accessed these bytes (with poison_kind): later conflicting siblings
  // are cancelled as if they depended on it, until the taskwait that reports it.
  std::exception_ptr poison;
};
// Keyed by start address; nodes come from the Executor's NodePool.
using FragmentMap = std::map<uintptr_t, Fragment, std::less<uintptr_t>,
                             PoolAlloc<std::pair<const uintptr_t, Fragment>>>;
// Each fragment's start address to its node (addr_index.hpp).
using FragmentIndex = AddrIndex<FragmentMap::iterator>;

struct Range {
  uintptr_t begin, end;
  Kind kind;
};

struct Task {
  std::function<void()> body;
  Task* parent = nullptr;
  Task* next = nullptr;                // ready queue / done stack / free list
  uint64_t id = 0;                     // this incarnation (unique per Executor)
  std::atomic<uint64_t> live_id{0};    // id until the accesses are released
  std::atomic<int> live{0};            // 1 for the body + one per unfinished child
  std::atomic<int> signalled{0};       // taskwait_on marker: set once complete
  uint64_t edge_stamp = 0;             // id of the last task given an edge from this one
  int pending = 0;                     // unfinished predecessors (+1 while registering)
  int refs = 0;                        // holders that may still read this task
  int priority = 0;
  bool marker = false;                 // taskwait_on: no body, completes when ready
  bool cancelled = false;              // a predecessor failed: skip the body
  bool poisoned = false;               // some fragment of `children` has poison
  bool failed = false;                 // body threw, was cancelled, or a child's error is unobserved
  const char* label = nullptr;
  std::exception_ptr cause;            // why it was cancelled (for taskwait_on)
  std::exception_ptr thrown;           // what the body threw (until completed)
  std::vector<Task*> successors;
  std::vector<Range> ranges;           // its accesses, to tidy the fragments on release
  std::vector<std::shared_ptr<CommGroup>> groups;
  std::vector<std::exception_ptr> errors;  // unobserved failures of its children
  FragmentMap children;                // the dependency state among its children
  FragmentIndex child_index;           // over `children`
};

struct Fifo {
  Task* head = nullptr;
  Task* tail = nullptr;
  bool empty() const { return !head; }
  void push(Task* t) {
    t->next = nullptr;
    if (tail) tail->next = t; else head = t;
    tail = t;
  }
  void push_front(Task* t) {
    t->next = head;
    head = t;
    if (!tail) tail = t;
  }
  Task* pop() {
    Task* t = head;
    head = t->next;
    if (!head) tail = nullptr;
    return t;
  }
  // Unlinks the first task (of up to *budget looked at) whose parent chain reaches
  // `ancestor`.
  Task* take_descendant(const Task* ancestor, int* budget);
};

// Scheduling policies, measured by bench/task_policy.cpp (docs/tasks.md): the ready
// queue's order within a priority, and whether a worker runs a successor it made
// ready next without queueing it.
enum class Policy : uint8_t { fifo, lifo, fifo_successor };
// For the policy benchmark: applies to Executors created afterwards.
void set_policy(Policy p) noexcept;
Policy policy() noexcept;
// Spawn throttling: in-flight tasks per worker above which a spawner outside the
// workers waits (0: never), for the policy benchmark.
void set_throttle_per_worker(uint64_t n) noexcept;
uint64_t throttle_per_worker() noexcept;

// Higher priority first, then the policy's order; priority 0 needs no map lookup.
class ReadyQueue {
 public:
  bool lifo = false;
  void push(Task* t);
  Task* pop();  // null when empty
  // The first ready descendant of `ancestor` among the first `limit` queued tasks (in
  // pop order), unlinked; null if none.
  Task* take_descendant(const Task* ancestor, int limit);
  size_t size() const { return size_.load(std::memory_order_relaxed); }
  // For an idle worker polling without the lock: a hint, exact only under it.
  bool maybe_nonempty() const { return size_.load(std::memory_order_relaxed) != 0; }
  int top_priority() const {  // of the task pop() would return; the queue is not empty
    return !high_.empty() ? high_.begin()->first : !normal_.empty() ? 0 : low_.begin()->first;
  }

 private:
  Fifo normal_;
  std::map<int, Fifo, std::greater<int>> high_;
  std::map<int, Fifo, std::greater<int>> low_;
  // Written under the Executor's lock only; atomic so that spinning workers may peek.
  std::atomic<size_t> size_{0};
  void add_size(long d) { size_.store(size_.load(std::memory_order_relaxed) + d, std::memory_order_relaxed); }
};

struct Worker;

// Dependency bookkeeping (deps.cpp); all under Impl::mu.
// Adds t's edges from its earlier siblings (t->pending counts them) and records its
// accesses; deps were checked by the caller.
void register_accesses(Task* t, std::span<const Dep> deps);
// Marks t's accesses released, hands its successors to ready (those now free),
// tidies finished fragments and frees its commutative groups (waiters to requeue).
void release_accesses(Task* t, std::vector<Task*>& ready, std::vector<Task*>& requeue);
// After the taskwait that reported the failures of t's children: forgets the poison.
void clear_poison(Task* t);
// Takes every commutative group of t, or parks t on a busy one (false).
bool try_take_groups(Task* t);

// mu: unlocking also completes the tasks that workers left on `done` meanwhile.
class ExecMutex {
 public:
  explicit ExecMutex(Executor::Impl* ex) : ex_(ex) {}
  void lock() noexcept { raw_.lock(); }
  bool try_lock() noexcept { return raw_.try_lock(); }
  bool is_locked() const noexcept { return raw_.is_locked(); }
  void unlock() noexcept;

 private:
  SpinLock raw_;
  Executor::Impl* ex_;
};

// Linux futex on a 32-bit sequence word: sleep while it still holds `seen`.
// Returns false on timeout.
bool futex_wait(std::atomic<uint32_t>& word, uint32_t seen, std::chrono::nanoseconds timeout = {});
void futex_wake(std::atomic<uint32_t>& word, int n);

}  // namespace interlace::task::detail

namespace interlace::task {

struct Executor::Impl {
  explicit Impl(Executor* self, Options opts);

  Executor* self;
  Options opts;
  int workers;
  int max_threads;
  detail::Policy policy;

  // Separate cache lines for what different threads write at once: the lock, the
  // queue (polled by idle workers), the completion list.
  alignas(64) detail::ExecMutex mu{this};
  alignas(64) detail::SpinLock qmu;  // the ready queue (pushes also hold mu)
  alignas(64) std::atomic<detail::Task*> done{nullptr};  // bodies ended, completion pending
  std::atomic<uint32_t> idle_seq{0};                     // bumped to wake idle workers
  detail::NodePool node_pool;  // before everything holding a FragmentMap
  alignas(64) detail::ReadyQueue ready;
  alignas(64) detail::Task root;  // parent of the top-level tasks
  // CPU slots not held by a running worker (negative: oversubscribed). Changed under
  // mu; atomic so that a worker may check it between tasks without mu.
  std::atomic<int> slots_free;
  int idle = 0;       // workers asleep on idle_seq
  int waking = 0;     // of those, already notified
  int spinning = 0;   // workers holding a slot that poll the queue before sleeping
  bool stop = false;
  bool warned_cap = false;
  std::vector<std::thread> threads;
  std::vector<std::unique_ptr<detail::Worker>> worker_states;
  uint64_t next_id = 0;
  Stats stats;

  // Spawn throttling: a thread outside the workers that has spawned far ahead of them
  // waits until they catch up, so the queues and dependency maps stay cache-sized
  // (docs/tasks.md). Never for workers, and off again if nothing finishes meanwhile.
  uint64_t in_flight = 0;  // spawned tasks not yet complete
  uint64_t throttle_high = 0, throttle_low = 0;
  int throttled = 0;
  bool throttle_off = false;
  std::atomic<uint32_t> throttle_seq{0};

  // Task pool.
  detail::Task* free_list = nullptr;
  std::vector<std::unique_ptr<detail::Task[]>> chunks;

  // Scratch lists for finish(), reused so finishing a task does not allocate.
  std::vector<detail::Task*> newly_ready;
  std::vector<detail::Task*> requeue;

  // All under mu.
  detail::Task* alloc_task();
  void drop_ref(detail::Task* t);
  detail::Task* spawn_locked(detail::Task* parent, std::span<const Dep> deps,
                             std::function<void()>&& body, int priority, const char* label,
                             bool marker);
  // The body of t ended (ran, threw or was skipped): completes t and, transitively,
  // parents whose last child it was; queues what became ready and wakes workers.
  // `successor`: where to leave one newly ready task for the calling worker to run
  // next (the fifo_successor policy), or null.
  void finish(detail::Task* t, detail::Task** successor = nullptr);
  // Completes what is on `done` (under mu).
  void drain_done(detail::Task** successor = nullptr);
  // Not under mu: the body of t ended; completes it now or leaves it to mu's holder.
  // `next`: the caller is a worker that looks at the queue right after, so a task this
  // makes ready needs no other worker woken for it.
  void complete(detail::Task* t, detail::Task** successor, bool next);
  void push_ready_locked(detail::Task* t);  // under mu
  detail::Task* pop_ready();                // not under mu
  void drop_live(detail::Task* t);
  void wake_workers();
  void throttle(std::unique_lock<detail::ExecMutex>& lk);
  void add_thread();
  // Neither holds mu on entry or return.
  detail::Task* next_task(detail::Worker* w);
  void poll_ready(std::chrono::steady_clock::time_point until);
  // How long an idle worker polls the queue before it sleeps.
  static constexpr std::chrono::microseconds kIdlePoll{50};
  void run(detail::Task* t, detail::Task** successor = nullptr, bool next = false);
  void worker_main(detail::Worker* w);
  void block(detail::Worker* w);
  void unblock(detail::Worker* w);

  // Not under mu.
  void wait_children(detail::Task* t);
  void shutdown();
};

namespace detail {
struct Worker final : blocking::Listener {
  explicit Worker(Executor::Impl* e) : ex(e) {}
  void on_block() noexcept override { ex->block(this); }
  void on_unblock() noexcept override { ex->unblock(this); }
  Executor::Impl* ex;
  bool has_slot = false;
  bool lent = false;  // gave its slot away for the current wait
};


// The calling thread's task and its Executor (null outside task bodies).
Executor::Impl* current_impl() noexcept;
Task* current_task() noexcept;
Worker* current_worker() noexcept;  // null on threads the executors did not start
// Parent for a spawn on `ex` from the calling thread: its task if it runs one of ex's.
Task* parent_for(Executor::Impl* ex) noexcept;
// Raises Error(invalid_argument) naming the first bad Dep.
void check_deps(std::span<const Dep> deps);
// Rethrows (and clears) the failures t's children left; several become one message.
void rethrow_errors(Task* t, std::unique_lock<detail::ExecMutex>& lk);
}  // namespace detail

}  // namespace interlace::task
