// The process state behind shmem.h: the fatal report, contexts and the argument checks
// shared by every entry point (docs/shmem.md#errors).
#include "compat/shmem/shmem_state.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "interlace/coll/coll.hpp"
#include "interlace/core/error.hpp"

namespace {
// Constant-initialized, so SHMEM_CTX_DEFAULT is valid before any constructor runs.
shmemi_ctx g_default_ctx{.is_default = true};
}  // namespace

extern "C" const shmem_ctx_t SHMEM_CTX_DEFAULT = &g_default_ctx;

namespace interlace::shmem {

State& state() {
  static State s;
  return s;
}

pgas::Pgas& pgas(const char* routine) {
  State& s = state();
  if (s.finalized)
    throw_error(Errc::finalized, std::string(routine) + " was called after shmem_finalize");
  if (!s.initialized || !s.pgas)
    throw_error(Errc::invalid_argument,
                std::string(routine) + " was called before shmem_init (or start_pes)");
  return *s.pgas;
}

void fatal(const char* routine, const std::string& what) {
  // A failure while reporting one (e.g. global_exit itself failing) must not recurse.
  static std::atomic<bool> reporting{false};
  if (reporting.exchange(true)) _exit(1);
  State& s = state();
  bool live = s.initialized && !s.finalized && s.pgas;
  std::string where;
  if (live) where = " (PE " + std::to_string(s.pgas->my_pe()) + ")";
  std::fprintf(stderr, "interlace shmem: %s: %s%s\n", routine, what.c_str(), where.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  // global_exit ends the other PEs too, also those blocked in a barrier; from inside an
  // active-message handler only this process can end (the launcher reports it).
  if (live && !pgas::Pgas::in_handler()) {
    try {
      s.pgas->global_exit(1);
    } catch (...) {
    }
  }
  _exit(1);
}

void world_barrier() {
  pgas::Pgas& p = pgas("shmem_barrier_all");
  p.quiet_all();
  coll::barrier(world());
}

Communicator world() { return state().rt.world(); }

pgas::Domain& domain_of(pgas::Pgas& p, shmem_ctx_t ctx) {
  if (ctx == SHMEM_CTX_INVALID)
    throw_error(Errc::invalid_argument, "ctx is SHMEM_CTX_INVALID");
  if (ctx->magic != shmemi_ctx::kMagic) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", static_cast<void*>(ctx));
    throw_error(Errc::invalid_argument, std::string("ctx ") + buf +
                                            " is not a context (destroyed, or not made by "
                                            "shmem_ctx_create)");
  }
  return ctx->is_default ? p.default_domain() : ctx->domain;
}

int target_pe(shmem_ctx_t ctx, int pe) {
  if (ctx == SHMEM_CTX_INVALID || ctx->world_pes.empty()) return pe;
  int n = static_cast<int>(ctx->world_pes.size());
  if (pe < 0 || pe >= n)
    throw_error(Errc::invalid_rank, "pe " + std::to_string(pe) +
                                        " is not a PE of the context's team (PEs 0.." +
                                        std::to_string(n - 1) + ")");
  return ctx->world_pes[static_cast<size_t>(pe)];
}

shmem_ctx_t new_ctx(pgas::Pgas& p, long options, void* team, std::vector<int> world_pes) {
  auto* c = new shmemi_ctx;
  c->options = options;
  c->domain = p.create_domain();
  c->team = team;
  c->world_pes = std::move(world_pes);
  return c;
}

void destroy_ctx(pgas::Pgas& p, shmem_ctx_t ctx) {
  if (ctx == SHMEM_CTX_INVALID) return;  // the specification makes this a no-op
  domain_of(p, ctx);                     // rejects a stray pointer
  if (ctx->is_default)
    throw_error(Errc::invalid_argument, "SHMEM_CTX_DEFAULT cannot be destroyed");
  p.destroy_domain(ctx->domain);
  ctx->magic = 0;
  delete ctx;
}

void check_nelems(size_t nelems, const char* name) {
  // size_t parameters: a negative count from the caller arrives as a huge value.
  if (static_cast<ptrdiff_t>(nelems) < 0)
    throw_error(Errc::invalid_count, std::string(name) + " " +
                                         std::to_string(static_cast<ptrdiff_t>(nelems)) +
                                         " is negative");
}

void check_ptr(const void* p, const char* name) {
  if (p == nullptr) throw_error(Errc::invalid_argument, std::string(name) + " is a null pointer");
}

void check_cmp(int cmp) {
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
    throw_error(Errc::invalid_argument,
                "cmp " + std::to_string(cmp) +
                    " is not a comparison constant (SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE: 0..5)");
}

void debug(const std::string& line) {
  State& s = state();
  if (!s.debug) return;
  int pe = (s.initialized && !s.finalized && s.pgas) ? s.pgas->my_pe() : -1;
  std::fprintf(stderr, "[interlace shmem PE %d] %s\n", pe, line.c_str());
}

}  // namespace interlace::shmem
