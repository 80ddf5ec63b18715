// Contract: a dependency-driven task runtime inside one rank (OmpSs-2 semantics,
// docs/tasks.md).
//  - A task declares the memory it accesses as Deps (address, bytes, access). Tasks
//    spawned by the same parent (siblings) are ordered by their Deps: a task runs once
//    every earlier sibling whose region overlaps one of its own (any byte in common,
//    not only the same base address) with a conflicting access has finished:
//      in after out/inout (read after write), out/inout after in (write after read),
//      out/inout after out/inout (write after write). Readers run concurrently.
//    concurrent: tasks with consecutive concurrent accesses run at the same time (the
//    program synchronises them itself); commutative: tasks with consecutive
//    commutative accesses run in any order but never two at once. Either kind is
//    ordered after the accesses before the group and before those after it.
//  - Nested tasks: a task may spawn tasks (its children); dependencies hold among
//    siblings only. A task's accesses are released when its body and all its
//    children have finished.
//  - taskwait() waits for the calling task's children (at top level: for the tasks
//    spawned outside any task on this Executor); taskwait_on(deps) waits only for the
//    earlier siblings whose accesses conflict with `deps`.
//  - An exception thrown by a task body is rethrown by the taskwait that covers it (the
//    first one; later ones are counted in the message). Tasks that depend on a failed
//    task, directly or through others, are cancelled (their bodies do not run).
//  - Higher priority runs first among ready tasks; equal priorities run in spawn order.
//  - A worker whose task blocks (taskwait, or a wait for a peer inside p2p, collectives,
//    channels, PGAS or OMPIF: interlace/core/blocking.hpp) lends its core to another
//    worker thread, so blocking tasks cannot starve the pool (docs/tasks.md).
//  - Bad input (a null address with a nonzero length, a negative length) raises
//    interlace::Error with Errc::invalid_argument naming the value.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <type_traits>

namespace interlace {
class Runtime;
}

namespace interlace::task {

enum class Access : uint8_t { in, out, inout, commutative, concurrent };
const char* access_name(Access a) noexcept;

// One declared access: `bytes` bytes from `addr`.
struct Dep {
  const void* addr = nullptr;
  size_t bytes = 0;
  Access access = Access::in;
};

// Checked construction from a signed length (a negative one raises, naming it).
Dep make_dep(const void* addr, long long bytes, Access access);

// Element-count helpers: in(p, n) is the array section p[0:n].
template <class T> Dep in(const T* p, size_t n = 1) { return {p, n * sizeof(T), Access::in}; }
template <class T> Dep out(T* p, size_t n = 1) { return {p, n * sizeof(T), Access::out}; }
template <class T> Dep inout(T* p, size_t n = 1) { return {p, n * sizeof(T), Access::inout}; }
template <class T> Dep commutative(T* p, size_t n = 1) {
  return {p, n * sizeof(T), Access::commutative};
}
template <class T> Dep concurrent(T* p, size_t n = 1) {
  return {p, n * sizeof(T), Access::concurrent};
}
template <class T> Dep in(std::span<const T> s) { return in(s.data(), s.size()); }
template <class T> Dep out(std::span<T> s) { return out(s.data(), s.size()); }
template <class T> Dep inout(std::span<T> s) { return inout(s.data(), s.size()); }

struct SpawnOptions {
  int priority = 0;             // higher runs first among ready tasks
  const char* label = nullptr;  // for diagnostics; must outlive the task
};

struct Options {
  // Worker count: 0 takes INTERLACE_TASK_WORKERS, else the cores this process may use
  // (sched_getaffinity).
  int workers = 0;
  // Tasks will communicate through this runtime (p2p, collectives, channels, PGAS):
  // its progress thread is started so that several workers may call it at once.
  interlace::Runtime* runtime = nullptr;
};

struct Stats {
  uint64_t spawned = 0;
  uint64_t executed = 0;
  uint64_t cancelled = 0;
  uint64_t blocked = 0;         // times a task lent its core while waiting
  int threads = 0;              // worker threads created so far (>= workers)
};

class Executor {
 public:
  explicit Executor(Options opts = {});
  // Waits for every task (as taskwait at top level); an unobserved exception is logged.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Spawns body as a child of the calling task (a top-level task outside any task).
  void spawn(std::span<const Dep> deps, std::function<void()> body, SpawnOptions opts = {});
  void spawn(std::initializer_list<Dep> deps, std::function<void()> body,
             SpawnOptions opts = {}) {
    spawn(std::span<const Dep>(deps.begin(), deps.size()), std::move(body), opts);
  }
  void spawn(std::function<void()> body, SpawnOptions opts = {}) {
    spawn(std::span<const Dep>(), std::move(body), opts);
  }

  void taskwait();
  void taskwait_on(std::span<const Dep> deps);
  void taskwait_on(std::initializer_list<Dep> deps) {
    taskwait_on(std::span<const Dep>(deps.begin(), deps.size()));
  }

  int workers() const noexcept;
  Stats stats() const;

  // The Executor whose task the calling thread is running, or null.
  static Executor* current() noexcept;
  // True while the calling thread runs a task body of any Executor.
  static bool in_task() noexcept;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Worker count an Executor with workers = 0 would get.
int default_workers();

// The process's shared Executor (the C API interlace/tasks.h, OMPIF device code and
// Python use it): created on first use with Options{}; lives until exit.
Executor& process_executor();

}  // namespace interlace::task
