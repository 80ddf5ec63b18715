// Internal: the process's SMI runtime and error reporting shared by the C entry points.
#pragma once
#include <exception>
#include <string>

#include "interlace/p2p/communicator.hpp"
#include "smi.h"

struct SMI_Comm_s {
  int magic;  // tells SMI_COMM_WORLD from a stray pointer in error messages
};

namespace interlace::compat::smi {

// The runtime SMI calls use: the one bound to this thread (threads-as-ranks tests),
// else the process's (SMI_Init). Null when neither exists.
Runtime* current_runtime() noexcept;

// Binds `rt` to the calling thread (null unbinds); for the threads-as-ranks harness,
// where every thread is a rank with its own Runtime.
void bind_thread(Runtime* rt) noexcept;

// The communicator behind an SMI_Comm; raises Errc::invalid_comm naming the problem.
Communicator resolve(SMI_Comm comm, const char* call);

// Records the error for SMI_Error(); in SMI_ERRORS_ARE_FATAL mode prints it and ends
// the process. Returns the SMI error code (when the mode is SMI_ERRORS_RETURN).
int fail(const char* call, int code, const std::string& what);

// Converts the exception in flight (inside a catch block) into fail().
int fail_current(const char* call);

}  // namespace interlace::compat::smi
