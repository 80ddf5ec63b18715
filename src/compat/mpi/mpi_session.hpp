// Internal: MPI 4 sessions (mpi_session*.cpp). A session is a handle on the process's
// interlace runtime (shared with the world model, see runtime_acquire) plus its error
// handler, the thread level it provides and the buffered-send buffer it attached.
#pragma once
#include <cstddef>
#include <utility>

#include "compat/mpi/mpi_errh.hpp"
#include "compat/mpi/mpi_impl.hpp"

namespace interlace::mpi {

struct SessionObj {
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  int thread_level = MPI_THREAD_SINGLE;
  void* buffer = nullptr;  // the process buffer (State::bsend_buf) when this session attached it
};

// The live session `s`; raises MPI_ERR_SESSION naming it (null, finalized or unknown).
SessionObj& session_obj(MPI_Session s);
// Detaches the session's buffer (after its sends went out): MPI_Session_detach_buffer
// and MPI_Session_finalize. Returns the buffer and its size (nullptr, 0: none).
std::pair<void*, int> session_detach(SessionObj& o);

// Errors of a call on a live session go to its handler; those naming no valid session
// go to the world's (MPI's initial handler, MPI_ERRORS_ARE_FATAL unless changed).
int session_fail_current(const char* call, MPI_Session session);
template <class Body>
inline int session_guard(const char* call, MPI_Session session, Body&& body) {
  CallLock lock;  // as guard(): under MPI_THREAD_MULTIPLE session calls share the MPI lock
  try {
    body();
    return MPI_SUCCESS;
  } catch (...) {
    return session_fail_current(call, session);
  }
}

}  // namespace interlace::mpi
