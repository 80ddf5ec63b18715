// Contract: every failure interlace reports is an interlace::Error carrying an Errc
// code and a message that names the offending values. Hot paths return Errc
// (cheap) and the API boundary turns a non-ok code into an exception.
#pragma once
#include <stdexcept>
#include <string>

namespace interlace {

enum class Errc : int {
  ok = 0,
  would_block,        // internal: no space now, retry after progress
  invalid_argument,
  invalid_rank,
  invalid_tag,
  invalid_count,
  invalid_datatype,
  invalid_op,
  invalid_comm,
  truncated,          // receive buffer smaller than the message
  lost_peer,          // a peer process died or its link broke
  timeout,
  finalized,          // use after finalize
  cancelled,
  protocol,           // malformed or unauthenticated frame
  unsupported,
  system,             // an OS call failed (errno in the message)
  internal,
};

const char* errc_name(Errc c) noexcept;

class Error : public std::runtime_error {
 public:
  Error(Errc code, const std::string& what) : std::runtime_error(what), code_(code) {}
  Errc code() const noexcept { return code_; }
 private:
  Errc code_;
};

// Specialisations so C++ users can catch the cases they handle differently.
class LostPeerError : public Error { public: using Error::Error; };
class TimeoutError : public Error { public: using Error::Error; };
class TruncationError : public Error { public: using Error::Error; };

// Throws the Error subclass matching code; message gets "<errc_name>: " prefixed.
[[noreturn]] void throw_error(Errc code, const std::string& message);

// Throws Errc::system with strerror(errno) appended.
[[noreturn]] void throw_system_error(const std::string& what);

}  // namespace interlace
