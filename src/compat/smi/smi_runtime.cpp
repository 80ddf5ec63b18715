// SMI_Init/SMI_Finalize, communicator queries and error reporting.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "compat/smi/smi_state.hpp"
#include "interlace/compat/smi.hpp"
#include "interlace/core/datatype.hpp"
#include "interlace/engine/context.hpp"
#include "interlace/stream/channel.hpp"

// The address is the handle; the value only helps spot a stray pointer in a debugger.
struct SMI_Comm_s interlace_smi_comm_world = {0x534d4957};

namespace interlace::compat::smi {
namespace {

std::mutex g_mutex;
// Deliberately never destroyed at exit: a program that forgets SMI_Finalize (or
// ends with exit() from a fatal error) must not block in a destructor.
Runtime* g_runtime = nullptr;
thread_local Runtime* t_runtime = nullptr;
std::atomic<int> g_mode{SMI_ERRORS_ARE_FATAL};
thread_local int t_code = SMI_SUCCESS;
thread_local std::string t_message;

static_assert(int(SMI_DOUBLE) == int(Datatype::float64) && int(SMI_BYTE) == int(Datatype::bytes) &&
                  int(SMI_INT) == int(Datatype::int32) && int(SMI_FLOAT) == int(Datatype::float32) &&
                  int(SMI_FLOAT16) == int(Datatype::float16) && int(SMI_ULONG) == int(Datatype::uint64),
              "SMI_Datatype values must equal interlace::Datatype");

int code_of(Errc c) {
  switch (c) {
    case Errc::invalid_argument: return SMI_ERR_ARG;
    case Errc::invalid_rank: return SMI_ERR_RANK;
    case Errc::invalid_tag: return SMI_ERR_PORT;
    case Errc::invalid_count: case Errc::truncated: return SMI_ERR_COUNT;
    case Errc::invalid_datatype: return SMI_ERR_TYPE;
    case Errc::invalid_comm: case Errc::finalized: return SMI_ERR_COMM;
    case Errc::lost_peer: return SMI_ERR_LOST_PEER;
    case Errc::timeout: return SMI_ERR_TIMEOUT;
    default: return SMI_ERR_OTHER;
  }
}

std::string rank_text() {
  if (Runtime* rt = current_runtime(); rt && !rt->finalized()) return std::to_string(rt->context().rank());
  const char* r = std::getenv("INTERLACE_RANK");
  return r ? r : "?";
}

}  // namespace

Runtime* current_runtime() noexcept { return t_runtime ? t_runtime : g_runtime; }
void bind_thread(Runtime* rt) noexcept { t_runtime = rt; }

Communicator resolve(SMI_Comm comm, const char* call) {
  if (comm == nullptr)
    throw_error(Errc::invalid_comm, std::string(call) + ": the communicator is NULL");
  if (comm != SMI_COMM_WORLD) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", static_cast<void*>(comm));
    throw_error(Errc::invalid_comm, std::string(call) + ": communicator " + buf +
                                        " is not SMI_COMM_WORLD (the only SMI communicator)");
  }
  Runtime* rt = current_runtime();
  if (!rt) throw_error(Errc::invalid_comm, std::string(call) + ": SMI_Init has not been called");
  if (rt->finalized()) throw_error(Errc::finalized, std::string(call) + ": called after SMI_Finalize");
  return rt->world();
}

int fail(const char* call, int code, const std::string& what) {
  t_code = code;
  t_message = what;
  if (g_mode.load(std::memory_order_relaxed) == SMI_ERRORS_ARE_FATAL) {
    std::fflush(stdout);
    std::fprintf(stderr, "SMI error on rank %s in %s: %s\n", rank_text().c_str(), call, what.c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }
  return code;
}

int fail_current(const char* call) {
  try {
    throw;
  } catch (const Error& e) {
    return fail(call, code_of(e.code()), e.what());
  } catch (const std::exception& e) {
    return fail(call, SMI_ERR_OTHER, e.what());
  } catch (...) {
    return fail(call, SMI_ERR_OTHER, "unknown exception");
  }
}

}  // namespace interlace::compat::smi

namespace interlace::smi {

void attach(const Runtime& rt) {
  std::lock_guard<std::mutex> g(compat::smi::g_mutex);
  delete compat::smi::g_runtime;
  compat::smi::g_runtime = new Runtime(rt);
}

Runtime runtime() {
  Runtime* rt = compat::smi::current_runtime();
  return rt ? *rt : Runtime();
}

}  // namespace interlace::smi

using namespace interlace;
using namespace interlace::compat::smi;

extern "C" {

SMI_Comm SMI_Init(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  try {
    std::lock_guard<std::mutex> g(g_mutex);
    if (!current_runtime() || current_runtime()->finalized()) {
      Runtime rt = Runtime::init();
      delete g_runtime;
      g_runtime = new Runtime(std::move(rt));
    }
    // The stream engine handles channel frames once it exists; create it before this
    // rank can progress, so a peer's early grant or data is never dropped.
    stream::start_engine(current_runtime()->context());
    return SMI_COMM_WORLD;
  } catch (...) {
    fail_current("SMI_Init");
    return nullptr;
  }
}

int SMI_Finalize(void) {
  try {
    std::lock_guard<std::mutex> g(g_mutex);
    if (t_runtime) return SMI_SUCCESS;  // a harness thread: the harness owns its runtime
    if (!g_runtime) return fail("SMI_Finalize", SMI_ERR_COMM, "SMI_Init has not been called");
    g_runtime->finalize();
    return SMI_SUCCESS;
  } catch (...) {
    return fail_current("SMI_Finalize");
  }
}

int SMI_Initialized(void) {
  Runtime* rt = current_runtime();
  return rt && !rt->finalized();
}

int SMI_Comm_rank(SMI_Comm comm) {
  try {
    return resolve(comm, "SMI_Comm_rank").rank();
  } catch (...) {
    fail_current("SMI_Comm_rank");
    return -1;
  }
}

int SMI_Comm_size(SMI_Comm comm) {
  try {
    return resolve(comm, "SMI_Comm_size").size();
  } catch (...) {
    fail_current("SMI_Comm_size");
    return -1;
  }
}

size_t SMI_Type_size(SMI_Datatype type) {
  if (!datatype_valid(static_cast<uint8_t>(type)) || int(type) < 0) return 0;
  return datatype_size(static_cast<Datatype>(type));
}

const char* SMI_Type_name(SMI_Datatype type) {
  switch (type) {
    case SMI_BYTE: return "SMI_BYTE";
    case SMI_CHAR: return "SMI_CHAR";
    case SMI_SHORT: return "SMI_SHORT";
    case SMI_INT: return "SMI_INT";
    case SMI_LONG: return "SMI_LONG";
    case SMI_UCHAR: return "SMI_UCHAR";
    case SMI_USHORT: return "SMI_USHORT";
    case SMI_UINT: return "SMI_UINT";
    case SMI_ULONG: return "SMI_ULONG";
    case SMI_FLOAT16: return "SMI_FLOAT16";
    case SMI_BFLOAT16: return "SMI_BFLOAT16";
    case SMI_FLOAT: return "SMI_FLOAT";
    case SMI_DOUBLE: return "SMI_DOUBLE";
  }
  return "invalid";
}

int SMI_Set_errhandler(int mode) {
  if (mode != SMI_ERRORS_ARE_FATAL && mode != SMI_ERRORS_RETURN)
    return fail("SMI_Set_errhandler", SMI_ERR_ARG,
                "mode " + std::to_string(mode) +
                    " is neither SMI_ERRORS_ARE_FATAL (0) nor SMI_ERRORS_RETURN (1)");
  return g_mode.exchange(mode);
}

int SMI_Error(void) {
  const int c = t_code;
  t_code = SMI_SUCCESS;
  return c;
}

const char* SMI_Error_string(void) { return t_message.c_str(); }

}  // extern "C"
