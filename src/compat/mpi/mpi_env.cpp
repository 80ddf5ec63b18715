// MPI environment: the process state, Init/Finalize, Abort, timers, version queries,
// rank/size and the predefined communicator attributes (mpi_attr.cpp keeps the rest).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "interlace/core/job_clock.hpp"
#include "interlace/engine/context.hpp"
#include "compat/mpi/mpi_attr.hpp"
#include "compat/mpi/mpi_core.hpp"
#include "compat/mpi/mpi_errh.hpp"
#include "compat/mpi/mpi_spawn.hpp"

#ifndef INTERLACE_VERSION
#define INTERLACE_VERSION "unknown"
#endif

namespace interlace::mpi {

State& state() {
  static State s;
  return s;
}

void register_predefined_comms(State& s) {
  s.comms.put(MPI_COMM_WORLD, CommObj{s.rt.world(), MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD", true});
  s.comms.put(MPI_COMM_SELF, CommObj{s.rt.self(), MPI_ERRORS_ARE_FATAL, "MPI_COMM_SELF", true});
  s.groups.put(MPI_GROUP_EMPTY, GroupObj{});
}

MPI_Comm new_comm(Communicator c, MPI_Errhandler inherit) {
  return state().comms.add(CommObj{std::move(c), inherit, "", false});
}

namespace {

std::thread::id g_main_thread;

void copy_out(const std::string& text, char* out, int* len, size_t cap) {
  if (!out || !len) raise(MPI_ERR_ARG, "output string or length is a null pointer");
  std::string t = text.substr(0, cap - 1);
  std::memcpy(out, t.c_str(), t.size() + 1);
  *len = static_cast<int>(t.size());
}

// The predefined communicator attributes: *attribute_val points at a static int, as
// MPI specifies. Every communicator answers them (MPI only requires MPI_COMM_WORLD).
bool comm_predefined_attr(int comm, int keyval, void* attribute_val) {
  static int tag_ub, host, io, wtime_global, universe, lastused;
  int* value = nullptr;
  switch (keyval) {
    case MPI_TAG_UB: tag_ub = kTagUpperBound; value = &tag_ub; break;
    case MPI_HOST: host = MPI_PROC_NULL; value = &host; break;
    case MPI_IO: io = comm_of(comm).rank(); value = &io; break;
    case MPI_WTIME_IS_GLOBAL: wtime_global = 0; value = &wtime_global; break;
    case MPI_UNIVERSE_SIZE: universe = comm_of(MPI_COMM_WORLD).size(); value = &universe; break;
    case MPI_LASTUSEDCODE: lastused = last_used_code(); value = &lastused; break;
    default: return false;  // MPI_APPNUM is not known: the launcher runs one program
  }
  *static_cast<int**>(attribute_val) = value;
  return true;
}

void init(int required, int* provided) {
  State& s = state();
  if (s.finalized) raise(MPI_ERR_OTHER, "MPI cannot be initialized again after MPI_Finalize");
  if (s.initialized) raise(MPI_ERR_OTHER, "MPI is already initialized");
  runtime_acquire(0);
  s.thread_level = grant_thread_level(required);
  if (provided) *provided = s.thread_level;
  g_main_thread = std::this_thread::get_id();
  spawn::connect_to_parent();  // a spawned process meets its parents inside MPI_Init
  s.initialized = true;
}

// Sessions may start and end on any thread while the world model runs.
std::mutex g_runtime_mu;

}  // namespace

void runtime_acquire(int session_delta) {
  std::lock_guard<std::mutex> g(g_runtime_mu);
  State& s = state();
  if (!s.runtime_up) {
    // A restart (a session after the runtime ended) is a new start-up of every rank:
    // its shm names and store keys get their own job id, or peers would find the
    // addresses of the runtime that ended.
    engine::ContextOptions opts = engine::Context::options_from_environment();
    if (s.runtime_starts > 0) opts.env.job_id += ".restart" + std::to_string(s.runtime_starts);
    ++s.runtime_starts;
    s.rt = Runtime(opts);
    // A restarted runtime under MPI_THREAD_MULTIPLE needs its engine lock again.
    if (g_thread_multiple.load(std::memory_order_acquire)) s.rt.context().lock().enable();
    register_predefined_comms(s);
    register_predefined_types(s);
    register_predefined_ops(s);
    attr_register_predefined(AttrKind::comm, comm_predefined_attr);
    s.runtime_up = true;
  }
  s.live_sessions += session_delta;
}

void runtime_release(int session_delta) {
  std::lock_guard<std::mutex> g(g_runtime_mu);
  State& s = state();
  s.live_sessions += session_delta;
  const bool world_active = s.initialized && !s.finalized;
  if (!s.runtime_up || world_active || s.live_sessions > 0) return;
  drain_buffered_sends();
  release_requests();
  s.rt.finalize();
  s.runtime_up = false;
}

}  // namespace interlace::mpi

using namespace interlace::mpi;
using interlace::Communicator;

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  return guard("MPI_Init", MPI_COMM_NULL, [&] { init(MPI_THREAD_SINGLE, nullptr); });
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return guard("MPI_Init_thread", MPI_COMM_NULL, [&] {
    if (!provided) raise(MPI_ERR_ARG, "provided is a null pointer");
    init(required, provided);
  });
}

int MPI_Finalize(void) {
  return guard("MPI_Finalize", MPI_COMM_NULL, [&] {
    State& s = state();
    if (!s.initialized) raise(MPI_ERR_OTHER, "MPI_Finalize called before MPI_Init");
    if (s.finalized) raise(MPI_ERR_OTHER, "MPI_Finalize called twice");
    // MPI: Finalize first frees MPI_COMM_SELF's attributes (their delete callbacks are
    // how libraries such as mpi4py clean up while MPI still works), then the world's.
    // A failing delete callback is reported, but MPI is finalized all the same: a
    // process stuck half-finalized would hang the job.
    std::exception_ptr failed;
    for (MPI_Comm c : {MPI_COMM_SELF, MPI_COMM_WORLD}) {
      try {
        attr_delete_all(AttrKind::comm, c);
      } catch (const MpiError&) {
        if (!failed) failed = std::current_exception();
      }
    }
    drain_buffered_sends();
    // Live sessions keep the runtime (and the world's communicators) running.
    s.finalized = true;
    runtime_release(0);
    if (failed) std::rethrow_exception(failed);
  });
}

int MPI_Initialized(int* flag) {
  if (flag) *flag = state().initialized;
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  if (flag) *flag = state().finalized;
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  std::fprintf(stderr, "MPI_Abort called on rank %d with error code %d\n",
               world_rank_or_unknown(), errorcode);
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(errorcode != 0 ? errorcode : 1);  // the launcher then stops the other ranks
}

// The interlace clock: virtual seconds on the sim fabric (docs/sim.md), else wall clock.
double MPI_Wtime(void) { return interlace::clock::now(); }

double MPI_Wtick(void) { return interlace::clock::resolution(); }

int MPI_Get_processor_name(char* name, int* resultlen) {
  return guard("MPI_Get_processor_name", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Get_processor_name");
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
    copy_out(host, name, resultlen, MPI_MAX_PROCESSOR_NAME);
  });
}

int MPI_Get_version(int* version, int* subversion) {
  if (version) *version = MPI_VERSION;
  if (subversion) *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int MPI_Get_library_version(char* version, int* resultlen) {
  return guard("MPI_Get_library_version", MPI_COMM_NULL, [&] {
    copy_out(std::string("interlace ") + INTERLACE_VERSION + " (MPI 3.1 subset)", version,
             resultlen, MPI_MAX_LIBRARY_VERSION_STRING);
  });
}

int MPI_Query_thread(int* provided) {
  return guard("MPI_Query_thread", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Query_thread");
    if (!provided) raise(MPI_ERR_ARG, "provided is a null pointer");
    *provided = state().thread_level;
  });
}

int MPI_Is_thread_main(int* flag) {
  return guard("MPI_Is_thread_main", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Is_thread_main");
    if (!flag) raise(MPI_ERR_ARG, "flag is a null pointer");
    *flag = std::this_thread::get_id() == g_main_thread;
  });
}

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  return guard("MPI_Comm_rank", comm, [&] {
    const Communicator& c = comm_of(comm);
    if (!rank) raise(MPI_ERR_ARG, "rank is a null pointer");
    *rank = c.rank();
  });
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  return guard("MPI_Comm_size", comm, [&] {
    const CommObj& o = comm_obj(comm);
    if (!size) raise(MPI_ERR_ARG, "size is a null pointer");
    // An intercommunicator's `comm` counts the remote group; one handle lookup either way.
    *size = o.inter ? o.inter->local_comm.size() : o.comm.size();
  });
}

}  // extern "C"
