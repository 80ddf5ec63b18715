// Contract: a thread that is about to wait for something outside its control (a peer's
// message, a child task) announces it, so that a scheduler owning the thread can hand
// its core to other work meanwhile, and learns when the wait is over.
//  - The listener is per thread; threads without one pay one thread-local read.
//  - Scopes nest: the listener sees only the outermost enter and its matching leave.
//  - Listener callbacks must not block and must not throw.
#pragma once

namespace interlace::blocking {

class Listener {
 public:
  virtual ~Listener() = default;
  virtual void on_block() noexcept = 0;
  virtual void on_unblock() noexcept = 0;
};

// Installs `l` for the calling thread (null removes it); returns the previous one.
Listener* set_thread_listener(Listener* l) noexcept;
Listener* thread_listener() noexcept;

// Marks a wait: the outermost scope on a thread calls on_block/on_unblock.
class Scope {
 public:
  Scope() noexcept;
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Listener* listener_;
};

}  // namespace interlace::blocking
