// MPI 4 sessions: error handlers and the MPI 4.1 buffered-send calls (handle conversion
// is mpi_handles.cpp's, as for every handle kind).
// interlace keeps one buffered-send buffer per process (MPI_Buffer_attach's, used by
// every MPI_Bsend whatever its communicator), so a session's buffer IS that buffer:
// attaching one while another (the process's or another session's) is attached is
// MPI_ERR_BUFFER, and flushing waits for every buffered send of the process.
#include <climits>
#include <string>

#include "compat/mpi/mpi_core.hpp"
#include "compat/mpi/mpi_p2p.hpp"
#include "compat/mpi/mpi_session.hpp"

namespace interlace::mpi {
namespace {

void attach(MPI_Session session, void* buffer, long long size) {
  SessionObj& o = session_obj(session);
  require_initialized("MPI_Session_attach_buffer");
  if (size < 0) raise(MPI_ERR_BUFFER, "size " + std::to_string(size) + " is negative");
  if (size > INT_MAX)
    raise(MPI_ERR_COUNT, "size " + std::to_string(size) + " is above the largest buffer interlace keeps (" +
                             std::to_string(INT_MAX) + " bytes)");
  if (!buffer && size > 0) raise(MPI_ERR_BUFFER, "buffer is a null pointer");
  State& s = state();
  if (s.bsend_buf)
    raise(MPI_ERR_BUFFER, "a buffer of " + std::to_string(s.bsend_size) + " bytes is already attached " +
                              (o.buffer == s.bsend_buf ? "to session " + std::to_string(session)
                                                       : std::string("to the process or another session")) +
                              " (interlace has one buffered-send buffer per process; detach it first)");
  s.bsend_buf = buffer;
  s.bsend_size = static_cast<int>(size);
  o.buffer = buffer;
}

// MPI_Session_detach_buffer and its _c form, which differ only in the size's type.
template <class Size>
void detach(MPI_Session session, void* buffer_addr, Size* size) {
  SessionObj& o = session_obj(session);
  need(buffer_addr, "buffer_addr");
  need(size, "size");
  auto [buf, n] = session_detach(o);
  *static_cast<void**>(buffer_addr) = buf;
  *size = n;
}

}  // namespace

std::pair<void*, int> session_detach(SessionObj& o) {
  State& s = state();
  // MPI_Buffer_detach may have taken the buffer from under the session.
  if (!o.buffer || o.buffer != s.bsend_buf) {
    o.buffer = nullptr;
    return {nullptr, 0};
  }
  drain_buffered_sends();  // MPI: detaching waits until the buffered messages are sent
  std::pair<void*, int> out{s.bsend_buf, s.bsend_size};
  s.bsend_buf = nullptr;
  s.bsend_size = 0;
  o.buffer = nullptr;
  return out;
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Session_create_errhandler(MPI_Session_errhandler_function* session_errhandler_fn,
                                  MPI_Errhandler* errhandler) {
  return guard("MPI_Session_create_errhandler", MPI_COMM_NULL, [&] {
    need(errhandler, "errhandler");
    *errhandler = errh_create(ErrhKind::session, reinterpret_cast<void (*)(int*, int*, ...)>(session_errhandler_fn));
  });
}

int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  return session_guard("MPI_Session_set_errhandler", session, [&] {
    SessionObj& o = session_obj(session);
    errh_check_settable(ErrhKind::session, errhandler);
    o.errhandler = errhandler;
  });
}

int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  return session_guard("MPI_Session_get_errhandler", session, [&] {
    const SessionObj& o = session_obj(session);
    need(errhandler, "errhandler");
    *errhandler = errh_new_reference(o.errhandler);
  });
}

int MPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  const char* call = "MPI_Session_call_errhandler";
  return session_guard(call, session, [&] {
    errh_call(ErrhKind::session, session, session_obj(session).errhandler, call, errorcode);
  });
}

int MPI_Session_attach_buffer(MPI_Session session, void* buffer, int size) {
  return session_guard("MPI_Session_attach_buffer", session, [&] { attach(session, buffer, size); });
}

int MPI_Session_attach_buffer_c(MPI_Session session, void* buffer, MPI_Count size) {
  return session_guard("MPI_Session_attach_buffer_c", session, [&] { attach(session, buffer, size); });
}

int MPI_Session_detach_buffer(MPI_Session session, void* buffer_addr, int* size) {
  return session_guard("MPI_Session_detach_buffer", session, [&] { detach(session, buffer_addr, size); });
}

int MPI_Session_detach_buffer_c(MPI_Session session, void* buffer_addr, MPI_Count* size) {
  return session_guard("MPI_Session_detach_buffer_c", session, [&] { detach(session, buffer_addr, size); });
}

int MPI_Session_flush_buffer(MPI_Session session) {
  return session_guard("MPI_Session_flush_buffer", session, [&] {
    session_obj(session);
    drain_buffered_sends();
  });
}

int MPI_Session_iflush_buffer(MPI_Session session, MPI_Request* request) {
  return session_guard("MPI_Session_iflush_buffer", session, [&] {
    session_obj(session);
    need(request, "request");
    drain_buffered_sends();
    *request = new_request(done_request(MPI_COMM_NULL));  // the flush happened before
  });
}

}  // extern "C"
