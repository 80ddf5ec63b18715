// Error codes to names and to the matching exception type.
#include "interlace/core/error.hpp"

#include <cerrno>
#include <cstring>

namespace interlace {

const char* errc_name(Errc c) noexcept {
  switch (c) {
    case Errc::ok: return "ok";
    case Errc::would_block: return "would_block";
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::invalid_rank: return "invalid_rank";
    case Errc::invalid_tag: return "invalid_tag";
    case Errc::invalid_count: return "invalid_count";
    case Errc::invalid_datatype: return "invalid_datatype";
    case Errc::invalid_op: return "invalid_op";
    case Errc::invalid_comm: return "invalid_comm";
    case Errc::truncated: return "truncated";
    case Errc::lost_peer: return "lost_peer";
    case Errc::timeout: return "timeout";
    case Errc::finalized: return "finalized";
    case Errc::cancelled: return "cancelled";
    case Errc::protocol: return "protocol";
    case Errc::unsupported: return "unsupported";
    case Errc::system: return "system";
    case Errc::internal: return "internal";
  }
  // A raw int cast to Errc that matches no enumerator (e.g. from a C caller).
  return "unknown";
}

void throw_error(Errc code, const std::string& message) {
  std::string text = std::string(errc_name(code)) + ": " + message;
  switch (code) {
    case Errc::lost_peer: throw LostPeerError(code, text);
    case Errc::timeout: throw TimeoutError(code, text);
    case Errc::truncated: throw TruncationError(code, text);
    default: throw Error(code, text);
  }
}

void throw_system_error(const std::string& what) {
  // Capture errno first: building strings may allocate and clobber it.
  int err = errno;
  throw_error(Errc::system,
              what + ": " + std::strerror(err) + " (errno " + std::to_string(err) + ")");
}

}  // namespace interlace
