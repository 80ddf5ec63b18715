// coll::Request: waiting for a run, and telling a stuck run apart from ranks that
// called a different collective (those messages carry another kind in their tag).
#include <chrono>
#include <mutex>
#include <string>

#include "coll/executor.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/error.hpp"

namespace interlace::coll {

using Guard = std::lock_guard<engine::OptionalLock>;

namespace {

// A started receive whose message arrived under another collective kind: the peer
// called a different collective as its call number `seq` on this communicator.
void check_mismatch(Run& r) {
  const auto& steps = r.sched->step_list();
  p2p::P2pEngine& eng = *r.comm->rt->p2p;
  for (size_t i = r.first_open; i < steps.size(); ++i) {
    const Schedule::Step& s = steps[i];
    if (r.state[i] != 1 || s.kind == Schedule::StepKind::send) continue;
    const int w = r.comm->world_of[s.peer];
    for (int k = 0; k < kKindCount; ++k) {
      if (k == static_cast<int>(r.kind)) continue;
      Status st;
      if (eng.probe(*r.comm, w, message_tag(static_cast<Kind>(k), r.seq, s.sub), &st)) {
        r.error = std::make_exception_ptr(Error(
            Errc::protocol, "collective mismatch: this rank called " + r.what() + " but rank " +
                                std::to_string(s.peer) + " called " +
                                std::string(kind_name(static_cast<Kind>(k))) +
                                " as its collective #" + std::to_string(r.seq) +
                                " on this communicator"));
        abandon(r);
        return;
      }
    }
  }
}

}  // namespace

void Request::wait() {
  if (!run_) return;
  Run& r = *run_;
  engine::Context& ctx = *r.comm->rt->ctx;
  if (ctx.finalized()) throw_error(Errc::finalized, r.what() + ": waited on after finalize");
  if (!r.finished) {
    const double limit = ctx.config().op_timeout_s;
    uint64_t last_check = now_ns();
    Errc rc = ctx.wait_until(
        [&] {
          Guard g(ctx.lock());
          advance(r);
          if (!r.finished && now_ns() - last_check > 20'000'000) {
            last_check = now_ns();
            check_mismatch(r);
          }
          return r.finished;
        },
        Deadline::after(limit));
    if (rc == Errc::timeout)
      throw_error(rc, r.what() + " did not complete within " + std::to_string(limit) +
                          " s (INTERLACE_TIMEOUT): a rank of the communicator did not call it");
    if (rc != Errc::ok) throw_error(rc, r.what() + ": wait failed");
  }
  if (r.error) std::rethrow_exception(r.error);
}

bool Request::test() {
  if (!run_) return true;
  Run& r = *run_;
  engine::Context& ctx = *r.comm->rt->ctx;
  if (ctx.finalized()) throw_error(Errc::finalized, r.what() + ": tested after finalize");
  if (!r.finished) {
    Guard g(ctx.lock());
    ctx.progress();
    advance(r);
    if (!r.finished) return false;
  }
  if (r.error) std::rethrow_exception(r.error);
  return true;
}

const std::string& Request::algorithm() const {
  static const std::string none;
  return run_ ? run_->algorithm : none;
}

}  // namespace interlace::coll
