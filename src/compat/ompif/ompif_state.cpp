// Process state, lazy start-up, error handler and exit of the OMPIF layer.
#include "compat/ompif/ompif_state.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "interlace/engine/context.hpp"
#include "interlace/task/task.hpp"

namespace ompif {

namespace {

void default_handler(int code, const char* message) {
  std::fflush(stdout);
  std::fprintf(stderr, "OMPIF error %d: %s\n", code, message);
  std::fflush(stderr);
  // _exit, not exit: the failing call may run on a task worker while other threads
  // still use the runtime; exit's destructors would race them. The host sees this
  // device as lost.
  _exit(1);
}

std::atomic<OMPIF_Error_handler> g_handler{default_handler};

}  // namespace

State& state() {
  static auto* s = new State;  // never destroyed: tasks may still run at exit
  return *s;
}

int code_of(interlace::Errc e) noexcept {
  switch (e) {
    case interlace::Errc::invalid_argument: return OMPIF_ERR_ARG;
    case interlace::Errc::invalid_rank: return OMPIF_ERR_RANK;
    case interlace::Errc::invalid_tag: return OMPIF_ERR_TAG;
    case interlace::Errc::invalid_count: return OMPIF_ERR_COUNT;
    case interlace::Errc::invalid_datatype: return OMPIF_ERR_TYPE;
    case interlace::Errc::invalid_comm: return OMPIF_ERR_COMM;
    case interlace::Errc::truncated: return OMPIF_ERR_TRUNCATE;
    case interlace::Errc::lost_peer: return OMPIF_ERR_LOST_PEER;
    default: return OMPIF_ERR_OTHER;
  }
}

void report(int code, const std::string& message) {
  g_handler.load()(code, message.c_str());
}

const interlace::Communicator& world(const char* call) {
  State& s = state();
  std::lock_guard g(s.mu);
  if (s.finalized)
    interlace::throw_error(interlace::Errc::finalized,
                           std::string(call) + " after the runtime was finalised");
  if (!s.started) {
    // A program without a host: every rank is a device.
    s.rt = interlace::Runtime::init();
    s.rt.context().start_progress_thread();  // OMPIF may be called from several tasks
    s.comm = s.rt.world();
    s.started = true;
    std::atexit(finalize_at_exit);
  }
  if (s.comm.is_null())
    interlace::throw_error(
        interlace::Errc::invalid_comm,
        "world rank " + std::to_string(s.rt.world().rank()) +
            " is the host: OMPIF_COMM_WORLD holds the devices only (OMPIF is for device tasks)");
  return s.comm;
}

void finalize_at_exit() {
  State& s = state();
  std::lock_guard g(s.mu);
  if (!s.started || s.finalized) return;
  try {
    if (s.session && s.session->is_host()) s.session->finish();
    interlace::task::process_executor().taskwait();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "interlace: at exit: %s\n", e.what());
  }
  s.finalized = true;
  s.comm = {};
  s.session.reset();
  try {
    s.rt.finalize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "interlace: finalize at exit: %s\n", e.what());
  }
}

}  // namespace ompif

extern "C" OMPIF_Error_handler OMPIF_Set_error_handler(OMPIF_Error_handler h) {
  return ompif::g_handler.exchange(h ? h : ompif::default_handler);
}
