#include "interlace/p2p/communicator.hpp"

#include <limits>
#include <mutex>
#include <string>

#include "p2p/p2p_engine.hpp"

namespace interlace {

using p2p::CommState;
using p2p::RequestImpl;

namespace {

using Guard = std::lock_guard<engine::OptionalLock>;

std::string str(long long v) { return std::to_string(v); }

void check_live(const CommState& c, const char* op) {
  if (c.rt->finalized)
    throw_error(Errc::finalized, std::string(op) + ": called after interlace was finalized");
  if (c.freed) throw_error(Errc::invalid_comm, std::string(op) + ": communicator was freed");
}

// Returns the world rank, or PROC_NULL.
int peer_world(const CommState& c, int rank, bool any_ok, const char* op, const char* what) {
  if (rank == PROC_NULL) return PROC_NULL;
  if (any_ok && rank == ANY_SOURCE) return ANY_SOURCE;
  if (rank < 0 || rank >= c.size())
    throw_error(Errc::invalid_rank, std::string(op) + ": " + what + " rank " + str(rank) +
                                        " is out of range for a communicator of size " + str(c.size()));
  return c.world_of[rank];
}

void check_tag(int tag, bool any_ok, const char* op) {
  if (tag >= 0 || (any_ok && tag == ANY_TAG)) return;
  throw_error(Errc::invalid_tag, std::string(op) + ": tag " + str(tag) +
                                     " is invalid (tags are 0.." + str(kTagUpperBound) +
                                     (any_ok ? ", or ANY_TAG)" : ")"));
}

size_t check_buffer(const void* buf, size_t count, Datatype dt, const char* op) {
  if (static_cast<unsigned>(dt) >= static_cast<unsigned>(kDatatypeCount))
    throw_error(Errc::invalid_datatype, std::string(op) + ": datatype code " +
                                            str(static_cast<int>(dt)) + " is not a valid datatype");
  const size_t es = datatype_size(dt);
  if (count > std::numeric_limits<size_t>::max() / 2 / es)
    throw_error(Errc::invalid_count, std::string(op) + ": count " + std::to_string(count) +
                                         " is too large");
  if (count > 0 && buf == nullptr)
    throw_error(Errc::invalid_argument, std::string(op) + ": buffer is null but count is " +
                                            std::to_string(count));
  return count * es;
}

}  // namespace

CommState& Communicator::state() const {
  if (!state_) throw_error(Errc::invalid_comm, "operation on the null communicator");
  return *state_;
}

int Communicator::rank() const { return state().rank; }
int Communicator::size() const { return state().size(); }
uint64_t Communicator::id() const { return state().id; }
engine::Context& Communicator::context() const { return *state().rt->ctx; }

int Communicator::world_rank_of(int rank) const {
  return peer_world(state(), rank, false, "world_rank_of", "the");
}

namespace {

// `blocking`: the caller waits at once, so an eager message needs no request.
Request start_send(const std::shared_ptr<CommState>& sp, const void* buf, size_t count,
                   Datatype dt, int dest, int tag, bool sync, const char* op, bool internal = false,
                   bool blocking = false) {
  CommState& c = *sp;
  check_live(c, op);
  const size_t bytes = check_buffer(buf, count, dt, op);
  const int w = peer_world(c, dest, false, op, "destination");
  if (!internal) check_tag(tag, false, op);
  if (w == PROC_NULL) return Request{};
  p2p::P2pEngine& eng = p2p::engine_of(c);
  Guard g(eng.ctx().lock());
  if (eng.ctx().peer_lost(w))
    throw_error(Errc::lost_peer, std::string(op) + ": destination rank " + str(dest) + " is lost");
  // Out of credit, a blocking send first looks for credit the receiver has returned
  // (only under pressure: the steady state never gets here). Not for internal sends,
  // whose caller (a collective's progress) may itself run inside progress.
  if (blocking && !sync && bytes <= eng.eager_max() && !eng.eager_ok(w, bytes)) eng.ctx().progress();
  if (blocking && !sync && eng.eager_ok(w, bytes)) {
    const Errc rc = eng.send_eager(c.id, w, tag, buf, bytes);
    if (rc != Errc::ok)
      throw_error(rc, std::string(op) + " to rank " + str(dest) + " failed");
    return Request{};
  }
  RequestImpl* r = eng.new_request(RequestImpl::Op::send);
  r->comm_id = c.id;
  r->peer = w;
  r->tag = tag;
  r->sbuf = buf;
  r->bytes = bytes;
  eng.start_send(r, sync);
  return Request(r);
}

Request start_recv(const std::shared_ptr<CommState>& sp, void* buf, size_t count, Datatype dt,
                   int source, int tag, const char* op, bool internal = false) {
  CommState& c = *sp;
  check_live(c, op);
  const size_t bytes = check_buffer(buf, count, dt, op);
  const int w = peer_world(c, source, true, op, "source");
  if (!internal) check_tag(tag, true, op);
  p2p::P2pEngine& eng = p2p::engine_of(c);
  Guard g(eng.ctx().lock());
  RequestImpl* r = eng.new_request(RequestImpl::Op::recv);
  if (w == PROC_NULL) {
    r->status.source = PROC_NULL;
    r->status.tag = ANY_TAG;
    r->done = true;
    return Request(r);
  }
  r->comm = sp;
  r->comm_id = c.id;
  r->peer = w;
  r->tag = tag;
  r->buf = buf;
  r->cap = bytes;
  eng.start_recv(r);
  return Request(r);
}

}  // namespace

namespace p2p {
Request internal_isend(const std::shared_ptr<CommState>& c, const void* buf, size_t count,
                       Datatype dt, int dest, int tag) {
  return start_send(c, buf, count, dt, dest, tag, false, "internal send", true);
}
Request internal_irecv(const std::shared_ptr<CommState>& c, void* buf, size_t count, Datatype dt,
                       int source, int tag) {
  return start_recv(c, buf, count, dt, source, tag, "internal recv", true);
}
Status internal_probe(const CommState& c, int source, int tag) {
  P2pEngine& eng = engine_of(c);
  const int w = c.world_of.at(source);
  Status st;
  Errc rc = eng.ctx().wait_until([&] { return eng.probe(c, w, tag, &st); });
  if (rc != Errc::ok) throw_error(rc, "internal probe failed");
  return st;
}
bool internal_iprobe_world(const CommState& c, int source_world, int tag, Status* st) {
  return engine_of(c).probe(c, source_world, tag, st, false);
}
bool eager_ok_world(const CommState& c, int dest_world, size_t bytes) {
  return engine_of(c).eager_ok(dest_world, bytes);
}
Errc send_eager_world(const CommState& c, int dest_world, int tag, const void* buf, size_t bytes) {
  return engine_of(c).send_eager(c.id, dest_world, tag, buf, bytes);
}
}  // namespace p2p

void Communicator::send(const void* buf, size_t count, Datatype dt, int dest, int tag) const {
  state();
  start_send(state_, buf, count, dt, dest, tag, false, "send", false, true).wait();
}

void Communicator::ssend(const void* buf, size_t count, Datatype dt, int dest, int tag) const {
  state();
  start_send(state_, buf, count, dt, dest, tag, true, "ssend").wait();
}

Status Communicator::recv(void* buf, size_t count, Datatype dt, int source, int tag) const {
  state();
  return start_recv(state_, buf, count, dt, source, tag, "recv").wait();
}

Request Communicator::isend(const void* buf, size_t count, Datatype dt, int dest, int tag) const {
  state();
  return start_send(state_, buf, count, dt, dest, tag, false, "isend");
}

Request Communicator::issend(const void* buf, size_t count, Datatype dt, int dest, int tag) const {
  state();
  return start_send(state_, buf, count, dt, dest, tag, true, "issend");
}

Request Communicator::irecv(void* buf, size_t count, Datatype dt, int source, int tag) const {
  state();
  return start_recv(state_, buf, count, dt, source, tag, "irecv");
}

Status Communicator::sendrecv(const void* sendbuf, size_t sendcount, Datatype sendtype, int dest,
                              int sendtag, void* recvbuf, size_t recvcount, Datatype recvtype,
                              int source, int recvtag) const {
  state();
  Request r = start_recv(state_, recvbuf, recvcount, recvtype, source, recvtag, "sendrecv");
  Request s = start_send(state_, sendbuf, sendcount, sendtype, dest, sendtag, false, "sendrecv");
  Status st = r.wait();
  s.wait();
  return st;
}

bool Communicator::iprobe(int source, int tag, Status* status) const {
  CommState& c = state();
  check_live(c, "iprobe");
  const int w = peer_world(c, source, true, "iprobe", "source");
  check_tag(tag, true, "iprobe");
  if (w == PROC_NULL) {
    if (status) *status = Status{PROC_NULL, ANY_TAG, 0, Errc::ok, false};
    return true;
  }
  p2p::P2pEngine& eng = p2p::engine_of(c);
  Guard g(eng.ctx().lock());
  if (eng.probe(c, w, tag, status)) return true;
  eng.ctx().progress();
  return eng.probe(c, w, tag, status);
}

Status Communicator::probe(int source, int tag) const {
  CommState& c = state();
  check_live(c, "probe");
  const int w = peer_world(c, source, true, "probe", "source");
  check_tag(tag, true, "probe");
  Status st{PROC_NULL, ANY_TAG, 0, Errc::ok, false};
  if (w == PROC_NULL) return st;
  p2p::P2pEngine& eng = p2p::engine_of(c);
  if (w != ANY_SOURCE) eng.ctx().watch_peer(w);
  const double limit = eng.ctx().config().op_timeout_s;
  Errc rc = eng.ctx().wait_until([&] { return eng.probe(c, w, tag, &st); }, Deadline::after(limit));
  if (rc == Errc::timeout)
    throw_error(rc, "probe: no message from rank " + std::to_string(source) + " with tag " +
                        std::to_string(tag) + " within " + std::to_string(limit) + " s (INTERLACE_TIMEOUT)");
  if (rc != Errc::ok) throw_error(rc, "probe: wait failed");
  return st;
}

}  // namespace interlace
