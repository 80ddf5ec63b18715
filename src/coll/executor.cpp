// Schedule execution: steps start when their dependencies are done; sends and
// receives are p2p operations on internal tags, copies and reductions run inline.
#include "coll/executor.hpp"

#include <cstring>
#include <mutex>
#include <string>

#include "interlace/core/error.hpp"

namespace interlace::coll {

using Guard = std::lock_guard<engine::OptionalLock>;
using StepKind = Schedule::StepKind;

int message_tag(Kind k, uint32_t seq, int sub) noexcept {
  // bit 30 keeps clear of p2p's small internal tags; 5 bits kind, 10 bits sequence,
  // 15 bits message index. Wrapping reuses a tag only for a pair of ranks with that
  // many messages in flight, and even then p2p's in-order matching keeps them apart.
  const uint32_t v = (1u << 30) | ((static_cast<uint32_t>(k) & 31u) << 25) | ((seq & 0x3ffu) << 15) |
                     (static_cast<uint32_t>(sub) & 0x7fffu);
  return -static_cast<int>(v);
}

std::string Run::what() const {
  return std::string(kind_name(kind)) + " #" + std::to_string(seq) + " (" + algorithm + ")";
}

namespace {

// A split communicator's id is never reused, so its sequence counter and cached plans
// can only be dropped; kept, they cost ~100 bytes and more per communicator ever made.
void release_comm(void* self, uint64_t id) {
  auto& st = *static_cast<CollState*>(self);
  bool lent = false;
  for (auto it = st.plans.begin(); it != st.plans.end();) {
    if ((*it)->key.comm != id) {
      ++it;
    } else if ((*it)->run->in_use.load(std::memory_order_acquire)) {
      lent = true;  // cannot happen (a lent Run holds the communicator); keep its counter
      ++it;
    } else {
      it = st.plans.erase(it);
    }
  }
  if (!lent) st.seq.erase(id);
}

}  // namespace

size_t CollState::comm_entries() const noexcept {
  size_t n = seq.size();
  for (const auto& p : plans)
    if (!seq.count(p->key.comm)) ++n;  // a plan whose counter is gone would be a leak too
  return n;
}

CollState& CollState::of(engine::Context& ctx) {
  auto& slot = ctx.model_state(engine::Context::Model::coll);
  if (!slot) {
    // INTERLACE_COLL's syntax was checked by Config; its names only coll knows. Checked
    // before the state exists, so every later call on this rank fails the same way.
    check_rules(ctx.config().coll_rules);
    auto st = std::make_shared<CollState>(ctx);
    st->segment_bytes = ctx.config().coll_segment;
    ctx.add_progress_hook(&CollState::hook, st.get());
    ctx.add_comm_free_listener(&release_comm, st.get());
    slot = st;
  }
  return *static_cast<CollState*>(slot.get());
}

bool CollState::hook(void* self) {
  auto* st = static_cast<CollState*>(self);
  bool moved = false;
  // Runs once per progress round: no shared_ptr copies (two atomic operations each).
  // A finished run leaves the list as the loop moves on (retire() may also remove it).
  for (size_t i = 0; i < st->active.size();) {
    Run& r = *st->active[i];
    moved |= advance(r);
    if (r.done) {
      std::shared_ptr<Run> gone = std::move(st->active[i]);
      st->active.erase(st->active.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
  return moved;
}

void retire(Run& r) {
  // A run in `active` keeps its communicator, and through it the Context that owns
  // `active`, alive: drop it as soon as it is done, or the rank's state would leak.
  auto& v = r.owner->active;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].get() == &r) {
      v.erase(v.begin() + static_cast<long>(i));
      return;
    }
}

const std::shared_ptr<groups::CommState>& comm_state(const Communicator& c, const char* op) {
  const auto& s = c.group_state();
  if (!s) throw_error(Errc::invalid_comm, std::string(op) + ": called on the null communicator");
  if (s->rt->finalized) throw_error(Errc::finalized, std::string(op) + ": called after interlace was finalized");
  if (s->freed) throw_error(Errc::invalid_comm, std::string(op) + ": communicator was freed");
  return s;
}

namespace {

void fail(Run& r, std::exception_ptr e) {
  if (!r.error) r.error = e;
  abandon(r);
}

// With a compressor, messages of whole elements travel as `wire` elements through a
// per-step buffer; returns the element count (0 when uncompressed).
size_t wire_elems(const Run& r, const Schedule::Step& s) {
  const Compressor* z = r.sched->compressor();
  if (!z) return 0;
  const size_t es = r.sched->esize();
  if (s.kind == StepKind::recv_reduce) return s.bytes;
  return s.bytes % es == 0 ? s.bytes / es : 0;
}

std::byte* wire_buffer(Run& r, size_t i, size_t bytes) {
  if (r.wire.size() < r.state.size()) r.wire.resize(r.state.size());
  r.wire[i].reset(new std::byte[bytes ? bytes : 1]);
  return r.wire[i].get();
}

void start_step(Run& r, size_t i) {
  const Schedule::Step& s = r.sched->step_list()[i];
  const int tag = message_tag(r.kind, r.seq, s.sub);
  const size_t wn = wire_elems(r, s);
  const Compressor* z = r.sched->compressor();
  const size_t wbytes = z ? wn * datatype_size(z->wire) : 0;
  switch (s.kind) {
    case StepKind::send:
      if (!z && s.peer >= 0 && s.peer < r.comm->size() &&
          p2p::eager_ok_world(*r.comm, r.comm->world_of[s.peer], s.bytes)) {
        // An eager message completes on sending: no p2p request to create and retire.
        const int w = r.comm->world_of[s.peer];
        if (r.comm->ctx().peer_lost(w))
          throw_error(Errc::lost_peer, "internal send: destination rank " + std::to_string(s.peer) + " is lost");
        const Errc rc = p2p::send_eager_world(*r.comm, w, tag, s.src, s.bytes);
        if (rc != Errc::ok) throw_error(rc, "send to rank " + std::to_string(s.peer) + " failed");
        break;
      }
      if (wn) {
        std::byte* w = wire_buffer(r, i, wbytes);
        z->compress(s.src, w, wn, r.sched->dt());
        r.reqs[i] = p2p::internal_isend(r.comm, w, wbytes, Datatype::bytes, s.peer, tag);
      } else {
        r.reqs[i] = p2p::internal_isend(r.comm, s.src, s.bytes, Datatype::bytes, s.peer, tag);
      }
      r.state[i] = 1;
      return;
    case StepKind::recv:
    case StepKind::recv_reduce: {
      void* dst = s.kind == StepKind::recv ? s.dst : const_cast<void*>(s.src);
      size_t bytes = s.kind == StepKind::recv ? s.bytes : s.bytes * r.sched->esize();
      if (wn) {
        dst = wire_buffer(r, i, wbytes);
        bytes = wbytes;
      }
      r.reqs[i] = p2p::internal_irecv(r.comm, dst, bytes, Datatype::bytes, s.peer, tag);
      r.state[i] = 1;
      return;
    }
    case StepKind::copy:
      if (s.bytes && s.dst != s.src) std::memmove(s.dst, s.src, s.bytes);
      break;
    case StepKind::combine:
      if (s.flag) r.sched->op().apply(s.src, s.dst, s.bytes, r.sched->dt());
      else r.sched->op().apply_left(s.dst, s.src, s.bytes, r.sched->dt());
      break;
    case StepKind::join:
      break;
  }
  r.state[i] = 2;
}

// A started p2p step: finished yet? Raises the p2p error or a size mismatch.
bool finish_step(Run& r, size_t i) {
  const Schedule::Step& s = r.sched->step_list()[i];
  const interlace::Request& q = r.reqs[i];
  if (!q.done()) return false;
  const Status& st = q.status();
  if (!q.is_null() && s.kind != StepKind::send) {
    if (st.error == Errc::ok) {
      const size_t wn = wire_elems(r, s);
      const size_t want = wn ? wn * datatype_size(r.sched->compressor()->wire)
                             : s.kind == StepKind::recv ? s.bytes : s.bytes * r.sched->esize();
      if (st.bytes != want)
        throw_error(Errc::invalid_count, r.what() + ": rank " + std::to_string(s.peer) + " sent " +
                                             std::to_string(st.bytes) + " bytes where " +
                                             std::to_string(want) +
                                             " were expected (counts differ between ranks)");
    }
  }
  if (q.is_null() || st.error != Errc::ok) r.reqs[i].wait();  // raises the operation's error
  r.reqs[i] = interlace::Request{};
  if (s.kind != StepKind::send) {
    if (const size_t wn = wire_elems(r, s)) {
      void* dst = s.kind == StepKind::recv ? s.dst : const_cast<void*>(s.src);
      r.sched->compressor()->decompress(r.wire[i].get(), dst, wn, r.sched->dt());
    }
  }
  if (i < r.wire.size()) r.wire[i].reset();
  if (s.kind == StepKind::recv_reduce) {
    if (s.flag) r.sched->op().apply(s.src, s.dst, s.bytes, r.sched->dt());
    else r.sched->op().apply_left(s.dst, s.src, s.bytes, r.sched->dt());
  }
  r.state[i] = 2;
  return true;
}

}  // namespace

void abandon(Run& r) {
  // Receives still posted would write into buffers the caller may free after the error.
  for (size_t i = r.first_open; i < r.reqs.size(); ++i) {
    if (r.state[i] != 1 || r.sched->step_list()[i].kind == StepKind::send) continue;
    try { r.reqs[i].cancel(); } catch (...) {}
  }
  r.done = true;
}

// A started receive whose message arrived under another collective kind: the peer
// called a different collective as its call number `seq` on this communicator.
bool check_mismatch(Run& r) {
  const auto& steps = r.sched->step_list();
  for (size_t i = r.first_open; i < steps.size(); ++i) {
    const Schedule::Step& s = steps[i];
    // Receives not started yet count too: a send that failed first (the peer left)
    // ends the run before later receives start.
    if (r.state[i] == 2 || s.kind == Schedule::StepKind::send) continue;
    if (s.peer < 0 || s.peer >= r.comm->size()) continue;
    const int w = r.comm->world_of[s.peer];
    for (int k = 0; k < kKindCount; ++k) {
      if (k == static_cast<int>(r.kind)) continue;
      Status st;
      if (p2p::internal_iprobe_world(*r.comm, w, message_tag(static_cast<Kind>(k), r.seq, s.sub), &st)) {
        r.error = std::make_exception_ptr(Error(
            Errc::protocol, "collective mismatch: this rank called " + r.what() + " but rank " +
                                std::to_string(s.peer) + " called " +
                                std::string(kind_name(static_cast<Kind>(k))) +
                                " as its collective #" + std::to_string(r.seq) +
                                " on this communicator"));
        abandon(r);
        return true;
      }
    }
  }
  // A message of this very call that this rank's schedule will never receive (the
  // sender counted more messages to us than we expect from it): the ranks disagree on
  // the root, the count or the algorithm. Without this a bcast with a different root
  // per rank waited forever on a rendezvous send nobody would match.
  const int n = r.comm->size();
  for (int p = 0; p < n; ++p) {
    if (p == r.comm->rank) continue;
    const int sub = r.sched->recvs_from(p);
    Status st;
    if (!p2p::internal_iprobe_world(*r.comm, r.comm->world_of[p], message_tag(r.kind, r.seq, sub), &st)) continue;
    r.error = std::make_exception_ptr(Error(
        Errc::protocol, "collective mismatch: rank " + std::to_string(p) + " sent more messages for " + r.what() +
                            " than the " + std::to_string(sub) + " this rank expects from it: the ranks disagree on the root, the count or the algorithm "
                            "(INTERLACE_COLL_CHECK=1 names the differing values)"));
    abandon(r);
    return true;
  }
  return false;
}

bool advance(Run& r) {
  if (r.done) return false;
  bool moved = false;
  const auto& steps = r.sched->step_list();
  try {
    // Dependencies point backwards, so one pass in order starts everything ready.
    for (size_t i = r.first_open; i < steps.size(); ++i) {
      if (r.state[i] == 0) {
        bool ready = true;
        for (Schedule::Id d : steps[i].deps)
          if (d >= 0 && r.state[d] != 2) { ready = false; break; }
        if (!ready) continue;
        start_step(r, i);
        moved = true;
      }
      if (r.state[i] == 1 && finish_step(r, i)) moved = true;
    }
  } catch (const Error& e) {
    // A peer that called another collective and then finished looks lost: say why.
    // A send to it can fail before its last frames were read: read them first (a
    // no-op when called from inside a progress round).
    if (e.code() == Errc::lost_peer) r.comm->ctx().progress();
    if (check_mismatch(r)) return true;
    fail(r, std::make_exception_ptr(Error(e.code(), r.what() + ": " + e.what())));
    return true;
  } catch (...) {
    fail(r, std::current_exception());
    return true;
  }
  while (r.first_open < steps.size() && r.state[r.first_open] == 2) ++r.first_open;
  if (r.first_open == steps.size()) r.done = true;
  return moved;
}

Request launch(const std::shared_ptr<groups::CommState>& c, std::shared_ptr<Schedule> s, Kind k,
               std::string algorithm, std::vector<std::shared_ptr<void>> keep) {
  engine::Context& ctx = *c->rt->ctx;
  Guard g(ctx.lock());
  CollState& st = CollState::of(ctx);
  auto r = std::make_shared<Run>();
  r->comm = c;
  r->owner = &st;
  r->kind = k;
  r->seq = st.seq[c->id]++;
  r->algorithm = std::move(algorithm);
  r->state.assign(s->steps(), 0);
  r->reqs.resize(s->steps());
  r->sched = std::move(s);
  r->keep = std::move(keep);
  advance(*r);
  if (!r->done) st.active.push_back(r);
  return Request(r);
}

}  // namespace interlace::coll
