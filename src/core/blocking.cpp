// Thread-local blocking listeners (interlace/core/blocking.hpp).
#include "interlace/core/blocking.hpp"

namespace interlace::blocking {

namespace {
thread_local Listener* t_listener = nullptr;
thread_local int t_depth = 0;
}  // namespace

Listener* set_thread_listener(Listener* l) noexcept {
  Listener* old = t_listener;
  t_listener = l;
  return old;
}

Listener* thread_listener() noexcept { return t_listener; }

Scope::Scope() noexcept : listener_(nullptr) {
  if (t_depth++ == 0 && t_listener) {
    listener_ = t_listener;
    listener_->on_block();
  }
}

Scope::~Scope() {
  --t_depth;
  if (listener_) listener_->on_unblock();
}

}  // namespace interlace::blocking
