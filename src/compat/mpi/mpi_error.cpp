// Error handling of the MPI layer: the call guard, error handlers, error codes that
// carry a message, MPI_Error_string / MPI_Error_class.
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>

#include "compat/mpi/mpi_core.hpp"
#include "compat/mpi/mpi_errh.hpp"

namespace interlace::mpi {
namespace {

// Codes above MPI_ERR_LASTCODE are (serial << 6) | class: the class survives even after
// the message is recycled; the last kKept messages are kept by serial.
constexpr int kClassBits = 6;
constexpr int kKept = 256;
static_assert(MPI_ERR_LASTCODE == (1 << kClassBits) - 1);

struct Kept {
  int code = 0;
  std::string msg;
};
std::mutex g_codes_mu;  // MPI_THREAD_SERIALIZED still lets several threads call us
std::array<Kept, kKept> g_kept;
int g_next_serial = 1;

const char* class_name(int cls) {
  static const char* const names[] = {
      "MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE", "MPI_ERR_TAG",
      "MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_ROOT", "MPI_ERR_GROUP", "MPI_ERR_OP",
      "MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS", "MPI_ERR_ARG", "MPI_ERR_UNKNOWN",
      "MPI_ERR_TRUNCATE", "MPI_ERR_OTHER", "MPI_ERR_INTERN", "MPI_ERR_IN_STATUS",
      "MPI_ERR_PENDING", "MPI_ERR_REQUEST", "MPI_ERR_NO_MEM", "MPI_ERR_KEYVAL",
      "MPI_ERR_INFO", "MPI_ERR_UNSUPPORTED_OPERATION", "MPI_ERR_PROC_FAILED",
      "MPI_ERR_TIMEOUT", "MPI_ERR_ACCESS", "MPI_ERR_AMODE", "MPI_ERR_ASSERT",
      "MPI_ERR_BAD_FILE", "MPI_ERR_BASE", "MPI_ERR_CONVERSION", "MPI_ERR_DISP",
      "MPI_ERR_DUP_DATAREP", "MPI_ERR_FILE_EXISTS", "MPI_ERR_FILE_IN_USE", "MPI_ERR_FILE",
      "MPI_ERR_INFO_KEY", "MPI_ERR_INFO_NOKEY", "MPI_ERR_INFO_VALUE", "MPI_ERR_IO",
      "MPI_ERR_LOCKTYPE", "MPI_ERR_NAME", "MPI_ERR_NO_SPACE", "MPI_ERR_NO_SUCH_FILE",
      "MPI_ERR_NOT_SAME", "MPI_ERR_PORT", "MPI_ERR_QUOTA", "MPI_ERR_READ_ONLY",
      "MPI_ERR_RMA_ATTACH", "MPI_ERR_RMA_CONFLICT", "MPI_ERR_RMA_RANGE", "MPI_ERR_RMA_SHARED",
      "MPI_ERR_RMA_SYNC", "MPI_ERR_RMA_FLAVOR", "MPI_ERR_SERVICE", "MPI_ERR_SIZE",
      "MPI_ERR_SPAWN", "MPI_ERR_UNSUPPORTED_DATAREP", "MPI_ERR_WIN", "MPI_ERR_SESSION",
      "MPI_ERR_PROC_ABORTED", "MPI_ERR_VALUE_TOO_LARGE", "MPI_ERR_ERRHANDLER"};
  static_assert(std::size(names) == MPI_ERR_LASTCODE + 1);
  if (cls >= 0 && cls < static_cast<int>(std::size(names))) return names[cls];
  return nullptr;
}

const char* class_description(int cls) {
  static const char* const texts[] = {
      "no error", "invalid buffer pointer or size", "invalid count argument",
      "invalid datatype", "invalid tag", "invalid communicator", "invalid rank",
      "invalid root", "invalid group", "invalid operation", "invalid topology",
      "invalid dimension argument", "invalid argument", "unknown error",
      "message truncated on receive", "other error", "internal error",
      "error code is in status", "pending request", "invalid request",
      "out of memory", "invalid keyval", "invalid info", "unsupported operation",
      "a peer process failed", "operation timed out (INTERLACE_TIMEOUT)",
      "permission denied", "invalid file access mode", "invalid assertion",
      "invalid file name", "invalid base address", "data conversion failed",
      "invalid displacement", "data representation already registered", "file exists",
      "file is in use", "invalid file handle", "invalid info key", "info key not found",
      "invalid info value", "I/O error", "invalid lock type", "name not published",
      "not enough space", "no such file", "collective argument not the same on all ranks",
      "invalid port name", "quota exceeded", "read-only file or file system",
      "memory cannot be attached", "conflicting accesses to a window",
      "target memory is outside the window", "invalid shared-memory window operation",
      "wrong synchronization of RMA calls", "window flavor does not allow the call",
      "name service failed", "invalid size", "process spawn failed",
      "unsupported data representation", "invalid window", "invalid session",
      "a peer process aborted", "value too large for the output argument",
      "invalid error handler"};
  static_assert(std::size(texts) == MPI_ERR_LASTCODE + 1);
  if (cls >= 0 && cls < static_cast<int>(std::size(texts))) return texts[cls];
  return nullptr;
}

int class_of_code(int code) {
  if (code < 0) return -1;
  if (code <= MPI_ERR_LASTCODE) return class_name(code) ? code : -1;
  int cls = code & MPI_ERR_LASTCODE;
  return class_name(cls) ? cls : -1;
}

MPI_Errhandler handler_for(MPI_Comm comm) {
  State& s = state();
  if (CommObj* c = s.comms.get(comm)) return c->errhandler;
  if (CommObj* w = s.comms.get(MPI_COMM_WORLD)) return w->errhandler;
  return MPI_ERRORS_ARE_FATAL;
}

void check_handler(MPI_Errhandler h) {
  if (h != MPI_ERRORS_ARE_FATAL && h != MPI_ERRORS_RETURN)
    raise(MPI_ERR_ARG, "error handler " + std::to_string(h) +
                           " is not MPI_ERRORS_ARE_FATAL or MPI_ERRORS_RETURN");
}

}  // namespace

int last_used_code() noexcept { return MPI_ERR_LASTCODE; }

[[noreturn]] void raise(int cls, const std::string& msg) { throw MpiError(cls, msg); }

int error_class_of(Errc e) noexcept {
  switch (e) {
    case Errc::ok: return MPI_SUCCESS;
    case Errc::invalid_rank: return MPI_ERR_RANK;
    case Errc::invalid_tag: return MPI_ERR_TAG;
    case Errc::invalid_count: return MPI_ERR_COUNT;
    case Errc::invalid_datatype: return MPI_ERR_TYPE;
    case Errc::invalid_op: return MPI_ERR_OP;
    case Errc::invalid_comm: return MPI_ERR_COMM;
    case Errc::truncated: return MPI_ERR_TRUNCATE;
    case Errc::lost_peer: return MPI_ERR_PROC_FAILED;
    case Errc::timeout: return MPI_ERR_TIMEOUT;
    case Errc::unsupported: return MPI_ERR_UNSUPPORTED_OPERATION;
    case Errc::invalid_argument: return MPI_ERR_ARG;
    case Errc::internal: return MPI_ERR_INTERN;
    default: return MPI_ERR_OTHER;  // finalized, cancelled, protocol, system...
  }
}

int make_error_code(int cls, const std::string& msg) {
  std::lock_guard<std::mutex> g(g_codes_mu);
  int serial = g_next_serial;
  g_next_serial = serial >= (1 << 20) ? 1 : serial + 1;
  int code = (serial << kClassBits) | cls;
  g_kept[serial % kKept] = Kept{code, msg};
  return code;
}

std::string error_message_of(int code) {
  if (code <= MPI_ERR_LASTCODE) return "";
  std::lock_guard<std::mutex> g(g_codes_mu);
  const Kept& k = g_kept[(code >> kClassBits) % kKept];
  return k.code == code ? k.msg : std::string();
}

[[noreturn]] void raise_code(int code) {
  int cls = class_of_code(code);
  std::string msg = error_message_of(code);
  if (msg.empty()) msg = class_description(cls < 0 ? MPI_ERR_UNKNOWN : cls);
  raise(cls < 0 ? MPI_ERR_UNKNOWN : cls, msg);
}

int world_rank_or_unknown() noexcept {
  try {
    if (CommObj* w = state().comms.get(MPI_COMM_WORLD)) return w->comm.rank();
  } catch (...) {
  }
  return -1;
}

void require_initialized(const char* call) {
  const State& s = state();
  if (!s.initialized)
    raise(MPI_ERR_OTHER, std::string(call) + " called before MPI_Init");
  if (s.finalized)
    raise(MPI_ERR_OTHER, std::string(call) + " called after MPI_Finalize");
}

int fail_current(const char* call, MPI_Comm comm) {
  int cls = MPI_SUCCESS;
  std::string what;
  try {
    throw;
  } catch (const MpiError& e) {
    cls = e.error_class();
    what = e.what();
  } catch (const Error& e) {
    cls = error_class_of(e.code());
    what = e.what();
  } catch (const std::bad_alloc&) {
    cls = MPI_ERR_NO_MEM;
    what = "out of memory";
  } catch (const std::exception& e) {
    cls = MPI_ERR_INTERN;
    what = e.what();
  } catch (...) {
    cls = MPI_ERR_INTERN;
    what = "unknown exception";
  }
  // Messages name the call once: "MPI_Send: count -3 is negative".
  const std::string prefix = std::string(call) + ": ";
  if (what.rfind(prefix, 0) == 0) what.erase(0, prefix.size());
  if (handler_for(comm) == MPI_ERRORS_RETURN) {
    // MPI specifies the exact value MPI_ERR_IN_STATUS (the details are in the statuses).
    if (cls == MPI_ERR_IN_STATUS) return MPI_ERR_IN_STATUS;
    return make_error_code(cls, prefix + what);
  }
  std::fprintf(stderr, "MPI error on rank %d in %s: %s\n", world_rank_or_unknown(), call,
               what.c_str());
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(1);  // like MPI_Abort(comm, 1): the launcher stops the other ranks
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return guard("MPI_Comm_set_errhandler", comm, [&] {
    CommObj& c = comm_obj(comm);
    check_handler(errhandler);
    c.errhandler = errhandler;
  });
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return guard("MPI_Errhandler_set", comm, [&] {
    CommObj& c = comm_obj(comm);
    check_handler(errhandler);
    c.errhandler = errhandler;
  });
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return guard("MPI_Comm_get_errhandler", comm, [&] {
    CommObj& c = comm_obj(comm);
    if (!errhandler) raise(MPI_ERR_ARG, "errhandler is a null pointer");
    *errhandler = c.errhandler;
  });
}

int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  return guard("MPI_Errhandler_free", MPI_COMM_NULL, [&] {
    if (!errhandler) raise(MPI_ERR_ARG, "errhandler is a null pointer");
    // Only the predefined handlers exist (no MPI_Comm_create_errhandler).
    if (*errhandler == MPI_ERRORS_ARE_FATAL || *errhandler == MPI_ERRORS_RETURN)
      raise(MPI_ERR_ARG, std::string(*errhandler == MPI_ERRORS_RETURN
                                         ? "MPI_ERRORS_RETURN"
                                         : "MPI_ERRORS_ARE_FATAL") +
                             " is predefined and cannot be freed");
    raise(MPI_ERR_ARG, "error handler " + std::to_string(*errhandler) + " is not valid");
  });
}

int MPI_Error_class(int errorcode, int* errorclass) {
  return guard("MPI_Error_class", MPI_COMM_NULL, [&] {
    int cls = class_of_code(errorcode);
    if (cls < 0) raise(MPI_ERR_ARG, "error code " + std::to_string(errorcode) + " is not valid");
    if (!errorclass) raise(MPI_ERR_ARG, "errorclass is a null pointer");
    *errorclass = cls;
  });
}

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  return guard("MPI_Error_string", MPI_COMM_NULL, [&] {
    int cls = class_of_code(errorcode);
    if (cls < 0) raise(MPI_ERR_ARG, "error code " + std::to_string(errorcode) + " is not valid");
    if (!string || !resultlen) raise(MPI_ERR_ARG, "string or resultlen is a null pointer");
    std::string text;
    if (errorcode <= MPI_ERR_LASTCODE) {
      text = class_description(cls);
    } else {
      std::string msg = error_message_of(errorcode);
      if (msg.empty()) msg = std::string(class_description(cls)) + " (details no longer kept)";
      text = std::string(class_name(cls)) + ": " + msg;
    }
    if (text.size() > MPI_MAX_ERROR_STRING - 1) text.resize(MPI_MAX_ERROR_STRING - 1);
    std::memcpy(string, text.c_str(), text.size() + 1);
    *resultlen = static_cast<int>(text.size());
  });
}

}  // extern "C"
