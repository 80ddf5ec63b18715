// The process's OMPIF / distributed-task state (one per process, as the C API has no
// handle): the runtime, the session when il_dist_init made one, the communicators, and
// the error handler every call reports through.
#pragma once
#include <memory>
#include <mutex>
#include <string>

#include "interlace/core/error.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/task/distributed.hpp"
#include "ompif.h"

namespace ompif {

struct State {
  std::mutex mu;
  bool started = false;    // runtime up (lazily by OMPIF, or by il_dist_init)
  bool finalized = false;
  interlace::Runtime rt;
  std::unique_ptr<interlace::task::dist::Session> session;  // il_dist_init only
  interlace::Communicator comm;  // OMPIF_COMM_WORLD: devices (null on the host)
};

State& state();

// Starts the runtime for OMPIF if nothing has (every rank a device); returns the
// OMPIF_COMM_WORLD communicator, raising on the host (which has no OMPIF rank).
const interlace::Communicator& world(const char* call);

// Runs fn; an interlace::Error or other exception goes to the error handler with the
// call's name. The value form returns `fallback` when the handler returns.
void report(int code, const std::string& message);
int code_of(interlace::Errc e) noexcept;

template <class F> void guarded(const char* call, F&& fn) {
  try {
    fn();
  } catch (const interlace::Error& e) {
    report(code_of(e.code()), std::string(call) + ": " + e.what());
  } catch (const std::exception& e) {
    report(OMPIF_ERR_OTHER, std::string(call) + ": " + e.what());
  }
}

template <class F, class R> R guarded(const char* call, F&& fn, R fallback) {
  R r = fallback;
  guarded(call, [&] { r = fn(); });
  return r;
}

// Runtime teardown at exit (registered once the runtime starts).
void finalize_at_exit();

}  // namespace ompif
