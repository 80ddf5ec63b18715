// Error codes of the MPI layer: the call guard's conversion of exceptions, codes that
// carry a message, user error classes and codes (MPI_Add_error_*), MPI_Error_string /
// MPI_Error_class. The handlers themselves are in mpi_errh.cpp.
//
// Values: 0..MPI_ERR_LASTCODE (63) are the predefined classes; user classes and codes
// take MPI_ERR_LASTCODE+1 .. kCodeSpace-1 in order; a code that carries a message is
// (serial << kClassBits) | class, so MPI_Error_class works on it even after the
// message was recycled (the last kKept messages are kept by serial).
#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include "compat/mpi/mpi_core.hpp"
#include "compat/mpi/mpi_errh.hpp"

namespace interlace::mpi {
namespace {

constexpr int kClassBits = 12;
constexpr int kCodeSpace = 1 << kClassBits;
constexpr int kMaxSerial = (1 << (31 - kClassBits)) - 1;  // codes stay positive ints
constexpr int kKept = 256;

struct Kept {
  int code = 0;
  std::string msg;
};
struct UserCode {
  int cls;           // itself for a class
  std::string text;  // MPI_Add_error_string ("" until set)
};

std::mutex g_codes_mu;  // several threads may fail at once
std::array<Kept, kKept> g_kept;
int g_next_serial = 1;
std::map<int, UserCode> g_user;  // user classes and codes by value
int g_last_used = MPI_ERR_LASTCODE;

bool is_class(int cls) {  // lock held
  if (cls >= 0 && cls <= MPI_ERR_LASTCODE) return true;
  auto it = g_user.find(cls);
  return it != g_user.end() && it->second.cls == cls;
}

int class_of_code_locked(int code) {
  if (code < 0) return -1;
  if (code <= MPI_ERR_LASTCODE) return code;
  if (code < kCodeSpace) {
    auto it = g_user.find(code);
    return it == g_user.end() ? -1 : it->second.cls;
  }
  int cls = code & (kCodeSpace - 1);
  return is_class(cls) ? cls : -1;
}

int class_of_code(int code) {
  std::lock_guard<std::mutex> g(g_codes_mu);
  return class_of_code_locked(code);
}

// "MPI_ERR_RANK", or a user class's string, or "error class 70".
std::string class_label(int cls) {
  if (const char* n = predefined_class_name(cls)) return n;
  std::lock_guard<std::mutex> g(g_codes_mu);
  auto it = g_user.find(cls);
  if (it != g_user.end() && !it->second.text.empty()) return it->second.text;
  return "error class " + std::to_string(cls);
}

// The MPI_Error_string text of a class or of a user code (no message attached).
std::string plain_text(int code) {
  if (const char* d = predefined_class_description(code)) return d;
  std::lock_guard<std::mutex> g(g_codes_mu);
  auto it = g_user.find(code);
  return it == g_user.end() ? std::string() : it->second.text;
}

int check_user_code(int code, const char* what) {  // lock held; returns its class
  auto it = g_user.find(code);
  if (code >= 0 && code <= MPI_ERR_LASTCODE)
    raise(MPI_ERR_ARG, std::string(what) + " " + std::to_string(code) +
                           " is predefined (only user classes and codes can be changed)");
  if (it == g_user.end())
    raise(MPI_ERR_ARG, std::string(what) + " " + std::to_string(code) +
                           " was not added by MPI_Add_error_class/MPI_Add_error_code");
  return it->second.cls;
}

// MPI 4.1 removes a code only once its string was removed.
void check_no_string(int code, const char* what) {  // lock held
  if (!g_user.at(code).text.empty())
    raise(MPI_ERR_ARG, std::string(what) + " " + std::to_string(code) +
                           " still has an error string (MPI_Remove_error_string first)");
}

int next_user_value() {  // lock held
  if (g_last_used + 1 >= kCodeSpace)
    raise(MPI_ERR_OTHER, "all " + std::to_string(kCodeSpace - MPI_ERR_LASTCODE - 1) +
                             " user error classes and codes are in use");
  return ++g_last_used;
}

}  // namespace

int last_used_code() noexcept {
  std::lock_guard<std::mutex> g(g_codes_mu);
  return g_last_used;
}

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
  g_next_serial = serial >= kMaxSerial ? 1 : serial + 1;
  int code = (serial << kClassBits) | cls;
  g_kept[serial % kKept] = Kept{code, msg};
  return code;
}

std::string error_message_of(int code) {
  if (code < kCodeSpace) return "";
  std::lock_guard<std::mutex> g(g_codes_mu);
  const Kept& k = g_kept[(code >> kClassBits) % kKept];
  return k.code == code ? k.msg : std::string();
}

[[noreturn]] void raise_code(int code) {
  int cls = class_of_code(code);
  std::string msg = error_message_of(code);
  if (cls < 0) cls = MPI_ERR_UNKNOWN;
  if (msg.empty()) msg = plain_text(code < kCodeSpace ? code : cls);
  if (msg.empty()) msg = class_label(cls);
  raise(cls, msg);
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
  if (s.runtime_up) return;  // the world model or a live session (MPI 4 sessions)
  if (s.finalized)
    raise(MPI_ERR_OTHER, std::string(call) + " called after MPI_Finalize (and outside any MPI session)");
  raise(MPI_ERR_OTHER, std::string(call) + " called before MPI_Init (and outside any MPI session)");
}

std::pair<int, std::string> current_error(const char* call) {
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
  return {cls, what};
}

int fail_current(const char* call, MPI_Comm comm) {
  auto [cls, what] = current_error(call);
  State& s = state();
  MPI_Errhandler h = MPI_ERRORS_ARE_FATAL;
  if (CommObj* c = s.comms.get(comm)) {
    h = c->errhandler;
  } else if (CommObj* w = s.comms.get(MPI_COMM_WORLD)) {
    h = w->errhandler;
    comm = MPI_COMM_WORLD;  // a user handler gets the communicator it belongs to
  }
  return dispatch_error(ErrhKind::comm, comm, h, call, cls, what);
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

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
    if (errorcode < kCodeSpace) {
      text = plain_text(errorcode);  // "" for a user class or code without a string
    } else {
      std::string msg = error_message_of(errorcode);
      if (msg.empty()) msg = plain_text(cls) + " (details no longer kept)";
      text = class_label(cls) + ": " + msg;
    }
    if (text.size() > MPI_MAX_ERROR_STRING - 1) text.resize(MPI_MAX_ERROR_STRING - 1);
    std::memcpy(string, text.c_str(), text.size() + 1);
    *resultlen = static_cast<int>(text.size());
  });
}

int MPI_Add_error_class(int* errorclass) {
  return guard("MPI_Add_error_class", MPI_COMM_NULL, [&] {
    if (!errorclass) raise(MPI_ERR_ARG, "errorclass is a null pointer");
    std::lock_guard<std::mutex> g(g_codes_mu);
    int cls = next_user_value();
    g_user.emplace(cls, UserCode{cls, ""});
    *errorclass = cls;
  });
}

int MPI_Add_error_code(int errorclass, int* errorcode) {
  return guard("MPI_Add_error_code", MPI_COMM_NULL, [&] {
    if (!errorcode) raise(MPI_ERR_ARG, "errorcode is a null pointer");
    std::lock_guard<std::mutex> g(g_codes_mu);
    if (!is_class(errorclass))
      raise(MPI_ERR_ARG, "error class " + std::to_string(errorclass) + " is not an error class");
    int code = next_user_value();
    g_user.emplace(code, UserCode{errorclass, ""});
    *errorcode = code;
  });
}

int MPI_Add_error_string(int errorcode, const char* string) {
  return guard("MPI_Add_error_string", MPI_COMM_NULL, [&] {
    if (!string) raise(MPI_ERR_ARG, "string is a null pointer");
    size_t n = std::strlen(string);
    if (n > MPI_MAX_ERROR_STRING - 1)
      raise(MPI_ERR_ARG, "string of " + std::to_string(n) +
                             " characters is longer than MPI_MAX_ERROR_STRING - 1 (511)");
    std::lock_guard<std::mutex> g(g_codes_mu);
    check_user_code(errorcode, "error code");
    g_user.at(errorcode).text = string;
  });
}

// MPI 4.1. Removed values are not given out again (MPI_LASTUSEDCODE only grows). A
// class or code is removed only once nothing refers to it: its string removed first,
// and a class's codes.
int MPI_Remove_error_class(int errorclass) {
  return guard("MPI_Remove_error_class", MPI_COMM_NULL, [&] {
    std::lock_guard<std::mutex> g(g_codes_mu);
    if (check_user_code(errorclass, "error class") != errorclass)
      raise(MPI_ERR_ARG, std::to_string(errorclass) + " is an error code, not a class");
    for (const auto& [code, u] : g_user)
      if (u.cls == errorclass && code != errorclass)
        raise(MPI_ERR_ARG, "error class " + std::to_string(errorclass) + " still has error code " +
                               std::to_string(code));
    check_no_string(errorclass, "error class");
    g_user.erase(errorclass);
  });
}

int MPI_Remove_error_code(int errorcode) {
  return guard("MPI_Remove_error_code", MPI_COMM_NULL, [&] {
    std::lock_guard<std::mutex> g(g_codes_mu);
    if (check_user_code(errorcode, "error code") == errorcode)
      raise(MPI_ERR_ARG, std::to_string(errorcode) + " is an error class, not a code");
    check_no_string(errorcode, "error code");
    g_user.erase(errorcode);
  });
}

int MPI_Remove_error_string(int errorcode) {
  return guard("MPI_Remove_error_string", MPI_COMM_NULL, [&] {
    std::lock_guard<std::mutex> g(g_codes_mu);
    check_user_code(errorcode, "error code");
    g_user.at(errorcode).text.clear();
  });
}

}  // extern "C"
