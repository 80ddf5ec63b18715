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

#include "interlace/p2p/communicator.hpp"
#include "interlace/pgas/pgas.hpp"

namespace interlace::shmem {

struct State {
  Runtime rt;
  pgas::Pgas* pgas = nullptr;
  bool initialized = false;
  bool finalized = false;
  int thread_level = 0;  // SHMEM_THREAD_*
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

}  // namespace interlace::shmem
