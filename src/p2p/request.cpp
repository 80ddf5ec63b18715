#include "interlace/p2p/request.hpp"

#include <mutex>
#include <string>

#include "p2p/p2p_engine.hpp"

namespace interlace {

using p2p::RequestImpl;

Request::Request(const Request& o) : impl_(o.impl_) {
  if (impl_) impl_->refs.fetch_add(1, std::memory_order_relaxed);
}

Request& Request::operator=(const Request& o) {
  if (this != &o) {
    Request tmp(o);
    std::swap(impl_, tmp.impl_);
  }
  return *this;
}

Request& Request::operator=(Request&& o) noexcept {
  if (this != &o) {
    Request tmp(std::move(o));
    std::swap(impl_, tmp.impl_);
  }
  return *this;
}

Request::~Request() {
  if (!impl_) return;
  auto& lk = impl_->eng->ctx().lock();
  std::lock_guard<engine::OptionalLock> g(lk);
  impl_->eng->release(impl_);
}

bool Request::done() const noexcept { return !impl_ || impl_->done; }
const Status& Request::status() const noexcept {
  static const Status kEmpty{};
  return impl_ ? impl_->status : kEmpty;
}
bool Request::is_receive() const noexcept { return impl_ && impl_->op == RequestImpl::Op::recv; }
engine::Completion* Request::completion() const noexcept { return impl_; }

namespace {

std::string describe(const RequestImpl* r) {
  if (r->op == RequestImpl::Op::send)
    return "send to world rank " + std::to_string(r->peer) + " tag " + std::to_string(r->tag);
  std::string src = r->peer == ANY_SOURCE ? std::string("any source")
                                          : "world rank " + std::to_string(r->peer);
  std::string tag = r->tag == ANY_TAG ? std::string("any tag") : "tag " + std::to_string(r->tag);
  return "receive from " + src + " with " + tag;
}

void raise_if_failed(const RequestImpl* r) {
  const Errc e = r->status.error;
  if (e == Errc::ok) return;
  if (e == Errc::truncated)
    throw_error(e, "message of " + std::to_string(r->expected) + " bytes from rank " +
                       std::to_string(r->status.source) + " (tag " + std::to_string(r->status.tag) +
                       ") does not fit the receive buffer of " + std::to_string(r->cap) + " bytes");
  if (e == Errc::lost_peer) throw_error(e, describe(r) + " failed: the peer process is gone");
  throw_error(e, describe(r) + " failed");
}

void check_usable(const RequestImpl* r) {
  if (r->eng->ctx().finalized())
    throw_error(Errc::finalized, "request used after interlace was finalized");
}

// Waits for one request within INTERLACE_TIMEOUT; raises if the wait itself fails.
void wait_or_throw(RequestImpl* r) {
  if (r->done) return;
  check_usable(r);
  const double limit = r->eng->ctx().config().op_timeout_s;
  const Errc rc = r->eng->wait(r, Deadline::after(limit));
  if (rc == Errc::timeout)
    throw_error(rc, describe(r) + " did not complete within " + std::to_string(limit) +
                        " s (INTERLACE_TIMEOUT)");
  if (rc != Errc::ok) throw_error(rc, describe(r) + ": wait failed");
}

}  // namespace

Status Request::wait() {
  if (!impl_) return Status{};
  check_usable(impl_);
  wait_or_throw(impl_);
  raise_if_failed(impl_);
  return impl_->status;
}

bool Request::test(Status* status) {
  if (!impl_) {
    if (status) *status = Status{};
    return true;
  }
  check_usable(impl_);
  if (!impl_->done) {
    std::lock_guard<engine::OptionalLock> g(impl_->eng->ctx().lock());
    impl_->eng->ctx().progress();
    if (!impl_->done) return false;
  }
  raise_if_failed(impl_);
  if (status) *status = impl_->status;
  return true;
}

void Request::cancel() {
  if (!impl_ || impl_->done) return;
  check_usable(impl_);
  std::lock_guard<engine::OptionalLock> g(impl_->eng->ctx().lock());
  if (impl_->op == RequestImpl::Op::send) impl_->eng->cancel_send(impl_);
  else impl_->eng->cancel(impl_);
}

void Request::wait_all(std::span<Request> reqs, Status* statuses) {
  // Wait for every request before raising, so no operation is left half-watched.
  for (Request& r : reqs) {
    if (r.impl_) wait_or_throw(r.impl_);
  }
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (!reqs[i].impl_) {
      if (statuses) statuses[i] = Status{};
      continue;
    }
    raise_if_failed(reqs[i].impl_);
    if (statuses) statuses[i] = reqs[i].impl_->status;
  }
}

int Request::wait_any(std::span<Request> reqs, Status* status) {
  p2p::P2pEngine* eng = nullptr;
  for (Request& r : reqs)
    if (r.impl_) { eng = r.impl_->eng; break; }
  if (!eng) return -1;
  if (eng->ctx().finalized()) throw_error(Errc::finalized, "wait_any after interlace was finalized");
  int found = -1;
  auto done = [&] {
    for (size_t i = 0; i < reqs.size(); ++i)
      if (reqs[i].impl_ && reqs[i].impl_->done) { found = static_cast<int>(i); return true; }
    return false;
  };
  const double limit = eng->ctx().config().op_timeout_s;
  Errc rc = eng->ctx().wait_until(done, Deadline::after(limit));
  if (rc == Errc::timeout)
    throw_error(rc, "wait_any: no request completed within " + std::to_string(limit) +
                        " s (INTERLACE_TIMEOUT)");
  if (rc != Errc::ok) throw_error(rc, "wait_any failed");
  raise_if_failed(reqs[found].impl_);
  if (status) *status = reqs[found].impl_->status;
  return found;
}

}  // namespace interlace
