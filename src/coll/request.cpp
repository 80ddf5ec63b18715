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

void Request::wait() {
  if (!run_) return;
  Run& r = *run_;
  engine::Context& ctx = *r.comm->rt->ctx;
  if (ctx.finalized()) throw_error(Errc::finalized, r.what() + ": waited on after finalize");
  bool finished;
  {
    Guard g(ctx.lock());  // the progress thread may be finishing it right now
    finished = r.done;
  }
  if (!finished) {
    const double limit = ctx.config().op_timeout_s;
    r.polls = 0;
    r.last_check = 0;
    engine::Completion* self = &r;
    Errc rc = ctx.wait_for({&self, 1}, true, Deadline::after(limit));
    if (rc == Errc::timeout)
      throw_error(rc, r.what() + " did not complete within " + std::to_string(limit) +
                          " s (INTERLACE_TIMEOUT); did every rank of the communicator call it?");
    if (rc != Errc::ok) throw_error(rc, r.what() + ": wait failed");
  }
  {
    Guard g(ctx.lock());
    retire(r);
  }
  if (r.error) std::rethrow_exception(r.error);
}

engine::Completion* Request::completion() const noexcept { return run_.get(); }

bool Run::poll() {
  const bool moved = advance(*this);
  if (!done && (++polls > 4096 || (polls & 255u) == 0)) {
    const uint64_t now = now_ns();
    if (last_check == 0) {
      last_check = now;
    } else if (now - last_check > 2'000'000) {
      last_check = now;
      check_mismatch(*this);
    }
  }
  return moved;
}

bool Request::test() {
  if (!run_) return true;
  Run& r = *run_;
  engine::Context& ctx = *r.comm->rt->ctx;
  if (ctx.finalized()) throw_error(Errc::finalized, r.what() + ": tested after finalize");
  {
    Guard g(ctx.lock());
    if (!r.done) {
      ctx.progress();
      advance(r);
      if (!r.done) return false;
    }
    retire(r);
  }
  if (r.error) std::rethrow_exception(r.error);
  return true;
}

const std::string& Request::algorithm() const {
  static const std::string none;
  return run_ ? run_->algorithm : none;
}

}  // namespace interlace::coll
