// Contract: a Request is a handle to a non-blocking operation (shared; copying it
// refers to the same operation). wait() completes it and returns its Status, raising
// the operation's error; test() never blocks. A null Request (default) is complete.
#pragma once
#include <cstddef>
#include <span>

#include "interlace/core/datatype.hpp"
#include "interlace/core/error.hpp"

namespace interlace {

namespace p2p { struct RequestImpl; }
namespace engine { struct Completion; }

struct Status {
  int source = -1;      // communicator rank of the sender
  int tag = -1;
  size_t bytes = 0;     // bytes received
  Errc error = Errc::ok;
  bool cancelled = false;
  size_t count(Datatype t) const noexcept { return bytes / datatype_size(t); }
};

class Request {
 public:
  Request() = default;
  Request(const Request& o);
  Request(Request&& o) noexcept : impl_(o.impl_) { o.impl_ = nullptr; }
  Request& operator=(const Request& o);
  Request& operator=(Request&& o) noexcept;
  ~Request();

  bool is_null() const noexcept { return impl_ == nullptr; }
  Status wait();
  bool test(Status* status = nullptr);
  // Cancels a receive that has not matched yet (then wait() returns status.cancelled).
  // A rendezvous send the receiver has not matched yet is withdrawn (one round trip:
  // wait() then returns status.cancelled); a send already matched or sent eagerly
  // completes normally, uncancelled.
  void cancel();

  // Without progressing or raising (for layers that wait on many requests at once):
  // finished yet; its status so far; whether it is a receive; its completion record.
  bool done() const noexcept;
  const Status& status() const noexcept;
  bool is_receive() const noexcept;
  engine::Completion* completion() const noexcept;

  static void wait_all(std::span<Request> reqs, Status* statuses = nullptr);
  // Index of a completed request (its status in *status); -1 if all are null.
  static int wait_any(std::span<Request> reqs, Status* status = nullptr);

  explicit Request(p2p::RequestImpl* impl) noexcept : impl_(impl) {}  // takes a reference
  p2p::RequestImpl* impl() const noexcept { return impl_; }

 private:
  p2p::RequestImpl* impl_ = nullptr;
};

}  // namespace interlace
