// The process state behind shmem.h: one PGAS runtime per process (OpenSHMEM has no
// handles for it). Every C entry point goes through shmem_call(), which turns an
// interlace::Error into the documented fatal report (docs/shmem.md#errors): OpenSHMEM
// routines return no error codes, so a bad argument prints
// "interlace shmem: <routine>: <message naming the value>" and ends the job (exit
// status 1 through shmem_global_exit), never a crash or a hang.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "interlace/p2p/communicator.hpp"
#include "interlace/pgas/pgas.hpp"
#include "shmem.h"

// What a shmem_ctx_t points to. SHMEM_CTX_DEFAULT points to a static one whose domain is
// the model's default domain. A team context (shmem_team_create_ctx) names its team's
// PEs: RMA and AMO calls on it take PE numbers of the team.
struct shmemi_ctx {
  static constexpr uint32_t kMagic = 0x53484358;  // tells a context from a stray pointer
  uint32_t magic = kMagic;
  bool is_default = false;
  long options = 0;
  interlace::pgas::Domain domain{};
  void* team = nullptr;         // the shmem_team_t it was created from, or null (world)
  std::vector<int> world_pes{};  // team PE i is world PE world_pes[i]; empty = world
};

namespace interlace::shmem {

struct State {
  Runtime rt;
  pgas::Pgas* pgas = nullptr;
  bool initialized = false;
  bool finalized = false;
  int thread_level = 0;  // SHMEM_THREAD_*
  int init_count = 0;    // shmem_init calls not yet matched by shmem_finalize
  bool debug = false;    // SHMEM_DEBUG
};

State& state();

// The attached PGAS model; raises finalized/invalid_argument naming `routine` when
// shmem_init has not run or shmem_finalize has.
pgas::Pgas& pgas(const char* routine);

// Prints the fatal report and exits the job (never returns).
[[noreturn]] void fatal(const char* routine, const std::string& what);

// Runs fn; any interlace::Error or std::exception becomes fatal(routine, ...).
template <class F>
auto call(const char* routine, F&& fn) -> decltype(fn()) {
  try {
    return std::forward<F>(fn)();
  } catch (const std::exception& e) {
    fatal(routine, e.what());
  }
}

// Completes every outstanding operation, then a barrier over all PEs (shmem_malloc,
// shmem_free, shmem_init/finalize and shmem_barrier_all use it).
void world_barrier();

// The world communicator of the runtime (teams and collectives build on it).
Communicator world();

// The domain behind a context; raises invalid_argument naming a context that is
// SHMEM_CTX_INVALID, destroyed or not a context.
pgas::Domain& domain_of(pgas::Pgas& p, shmem_ctx_t ctx);
// The world PE of `pe` given on `ctx` (the identity for world contexts); raises
// invalid_rank for a PE outside the context's team.
int target_pe(shmem_ctx_t ctx, int pe);
// A new context over a new domain (shmem_ctx_create; shmem_team_create_ctx passes its
// team and the world PE of each team PE), and its destruction (quiets it first).
shmem_ctx_t new_ctx(pgas::Pgas& p, long options, void* team, std::vector<int> world_pes);
void destroy_ctx(pgas::Pgas& p, shmem_ctx_t ctx);

// Argument checks the core cannot make, raising interlace::Error naming the value.
void check_nelems(size_t nelems, const char* name = "nelems");
void check_ptr(const void* p, const char* name);
void check_cmp(int cmp);

// A diagnostic line on stderr when SHMEM_DEBUG is set.
void debug(const std::string& line);

}  // namespace interlace::shmem
