#include "interlace/p2p/matched.hpp"

#include <mutex>
#include <string>

#include "p2p/p2p_engine.hpp"

namespace interlace {
namespace p2p {

struct ClaimedImpl {
  Unexpected msg;                   // eager bytes, or the sender's request-to-send
  std::shared_ptr<CommState> comm;  // keeps rank translation alive until the receive
};

}  // namespace p2p

namespace {

using Guard = std::lock_guard<engine::OptionalLock>;

int world_of(const Communicator& c, int source) {
  return source == ANY_SOURCE ? ANY_SOURCE : c.world_rank_of(source);
}

const std::shared_ptr<p2p::CommState>& live_state(const Communicator& c) {
  const std::shared_ptr<p2p::CommState>& cs = c.group_state();
  if (!cs) throw_error(Errc::invalid_comm, "mprobe on the null communicator");
  if (cs->rt->finalized) throw_error(Errc::finalized, "mprobe: called after interlace was finalized");
  return cs;
}

}  // namespace

ClaimedMessage::ClaimedMessage() = default;
ClaimedMessage::~ClaimedMessage() = default;
ClaimedMessage::ClaimedMessage(ClaimedMessage&&) noexcept = default;
ClaimedMessage& ClaimedMessage::operator=(ClaimedMessage&&) noexcept = default;
bool ClaimedMessage::empty() const noexcept { return !impl_; }

bool try_claim(const Communicator& c, int source, int tag, ClaimedMessage* out, Status* st) {
  const auto& cs = live_state(c);
  const int w = world_of(c, source);
  p2p::P2pEngine& eng = p2p::engine_of(*cs);
  // Claimed into the stack first: MPI_Improbe is polled, and a poll that finds nothing
  // should not cost a heap allocation.
  p2p::Unexpected msg;
  Guard g(eng.ctx().lock());
  bool got = eng.claim(*cs, w, tag, &msg, st);
  if (!got) {
    eng.ctx().progress();
    got = eng.claim(*cs, w, tag, &msg, st);
  }
  if (!got) return false;
  out->impl_ = std::make_unique<p2p::ClaimedImpl>(p2p::ClaimedImpl{std::move(msg), cs});
  return true;
}

ClaimedMessage claim_blocking(const Communicator& c, int source, int tag, Status* st) {
  const auto& cs = live_state(c);
  const int w = world_of(c, source);
  p2p::P2pEngine& eng = p2p::engine_of(*cs);
  if (w != ANY_SOURCE) eng.ctx().watch_peer(w);
  auto impl = std::make_unique<p2p::ClaimedImpl>();
  const double limit = eng.ctx().config().op_timeout_s;
  // The predicate runs under the context lock (wait_until takes it each round).
  Errc rc = eng.ctx().wait_until([&] { return eng.claim(*cs, w, tag, &impl->msg, st); },
                                 Deadline::after(limit));
  if (rc == Errc::timeout)
    throw_error(rc, "mprobe: no message from rank " + std::to_string(source) + " with tag " +
                        std::to_string(tag) + " within " + std::to_string(limit) +
                        " s (INTERLACE_TIMEOUT)");
  if (rc != Errc::ok) throw_error(rc, "mprobe: wait failed");
  impl->comm = cs;
  ClaimedMessage out;
  out.impl_ = std::move(impl);
  return out;
}

Request receive_claimed(ClaimedMessage& m, void* buf, size_t bytes) {
  if (!m.impl_) throw_error(Errc::invalid_argument, "mrecv: the message was already received");
  std::unique_ptr<p2p::ClaimedImpl> impl = std::move(m.impl_);
  p2p::P2pEngine& eng = p2p::engine_of(*impl->comm);
  Guard g(eng.ctx().lock());
  p2p::RequestImpl* r = eng.new_request(p2p::RequestImpl::Op::recv);
  r->comm = impl->comm;
  r->comm_id = impl->comm->id;
  r->buf = buf;
  r->cap = bytes;
  eng.start_recv_claimed(r, impl->msg);
  return Request(r);
}

}  // namespace interlace
