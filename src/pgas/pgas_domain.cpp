// Completion domains (OpenSHMEM contexts), waiting, and the job-wide exit.
#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "pgas/pgas_state.hpp"

namespace interlace::pgas {

DomainState& dom(PgasState& s, Domain& d) {
  (void)s;
  if (!d.valid()) throw_error(Errc::invalid_argument, "pgas: the context (domain) is invalid or destroyed");
  return *d.s_;
}

void op_issued(PgasState& s, DomainState& d, int pe) {
  ++d.outstanding;
  ++d.per_pe[pe];
  // Mapped peers get direct stores too: a fence must then wait for the messages.
  if (s.peer_heap_state[pe] > 0) d.mixed = true;
}

void op_completed(PgasState& s, uint32_t domain, int pe) {
  auto it = s.domains.find(domain);
  if (it == s.domains.end()) return;
  DomainState& d = *it->second;
  if (d.per_pe[pe] == 0) return;  // already written off when pe was reported lost
  --d.per_pe[pe];
  --d.outstanding;
}

void on_pgas_peer_lost(void* self, int peer) {
  auto& s = *static_cast<PgasState*>(self);
  for (auto& [id, d] : s.domains) {
    if (d->per_pe[peer] == 0) continue;
    d->error_code = Errc::lost_peer;
    d->error = "PE " + std::to_string(peer) + " was lost with " + std::to_string(d->per_pe[peer]) +
               " operations outstanding";
    d->outstanding -= d->per_pe[peer];
    d->per_pe[peer] = 0;
  }
  for (auto it = s.pending.begin(); it != s.pending.end();)
    it = it->second.pe == peer ? s.pending.erase(it) : std::next(it);
}

void wait_quiet(PgasState& s, DomainState& d) {
  forbid_in_handler("quiet");
  flush_notify(s);
  using Lock = std::lock_guard<engine::OptionalLock>;
  bool busy;
  {
    Lock g(s.ctx->lock());  // a progress thread completes operations concurrently
    busy = d.outstanding > 0;
  }
  if (busy) {
    const Errc rc = s.ctx->wait_until([&d] { return d.outstanding == 0; },
                                      Deadline::after(s.ctx->config().op_timeout_s));
    if (rc == Errc::timeout)
      throw_error(Errc::timeout, "pgas: quiet: " + std::to_string(d.outstanding) +
                                     " operations still outstanding after INTERLACE_TIMEOUT");
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::string e;
  Errc code;
  {
    Lock g(s.ctx->lock());
    d.mixed = false;
    e.swap(d.error);
    code = d.error_code;
  }
  if (!e.empty()) throw_error(code, "pgas: quiet: " + e);
}

Domain& Pgas::default_domain() noexcept { return s_->default_domain; }

Domain Pgas::create_domain() {
  std::lock_guard<engine::OptionalLock> g(s_->ctx->lock());
  Domain d;
  d.s_ = std::make_shared<DomainState>();
  d.s_->id = s_->next_domain++;
  d.s_->per_pe.assign(s_->size, 0);
  s_->domains[d.s_->id] = d.s_.get();
  return d;
}

void Pgas::destroy_domain(Domain& d) {
  if (!d.valid()) return;
  if (d.s_->id == 0) throw_error(Errc::invalid_argument, "pgas: the default context cannot be destroyed");
  quiet(d);
  std::lock_guard<engine::OptionalLock> g(s_->ctx->lock());
  s_->domains.erase(d.s_->id);
  d.s_.reset();
}

void Pgas::quiet(Domain& d) { wait_quiet(*s_, dom(*s_, d)); }

void Pgas::fence(Domain& d) {
  DomainState& ds = dom(*s_, d);
  // Messages to one PE run in order and direct stores are ordered by the fence below;
  // only a mix of the two to one PE needs the messages completed first.
  bool mixed;
  {
    std::lock_guard<engine::OptionalLock> g(s_->ctx->lock());
    mixed = ds.mixed && ds.outstanding > 0;
  }
  if (mixed) wait_quiet(*s_, ds);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void Pgas::quiet_all() {
  std::vector<DomainState*> all;
  {
    std::lock_guard<engine::OptionalLock> g(s_->ctx->lock());
    for (auto& [id, d] : s_->domains) all.push_back(d);
  }
  for (DomainState* d : all) wait_quiet(*s_, *d);
}

void Pgas::wait(const std::function<bool()>& cond) {
  forbid_in_handler("wait");
  flush_notify(*s_);
  if (cond()) return;
  s_->ctx->wait_until_memory(cond);
}

void Pgas::poll() {
  std::lock_guard<engine::OptionalLock> g(s_->ctx->lock());
  if (!in_handler_flag()) s_->ctx->progress();
}

void Pgas::global_exit(int status) {
  engine::Context& ctx = *s_->ctx;
  {
    std::lock_guard<engine::OptionalLock> g(ctx.lock());
    for (int pe = 0; pe < s_->size; ++pe) {
      if (pe == s_->rank || ctx.peer_lost(pe)) continue;
      fabric::FrameHeader h;
      h.kind = kKindExit;
      h.aux = static_cast<uint64_t>(static_cast<uint32_t>(status));
      ctx.send_frame(pe, h, nullptr, 0);
    }
  }
  if (!in_handler_flag())
    ctx.wait_until([&] {
      for (int pe = 0; pe < s_->size; ++pe)
        if (ctx.backlogged(pe)) return false;
      return true;
    }, Deadline::after(2.0));
  flush_notify(*s_);
  std::fflush(nullptr);
  _exit(status);
}

}  // namespace interlace::pgas
