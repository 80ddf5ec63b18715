// Leveled logging. One write(2) per line so lines from many threads and ranks
// sharing a terminal never interleave mid-line.
#include "interlace/core/log.hpp"

#include <exception>
#include <string>

#include "interlace/core/config.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <strings.h>

namespace interlace::log {
namespace detail {
// Constant-initialised to warn so logging from other static initialisers that
// run before ours behaves sanely; EnvLevel below refines it from INTERLACE_LOG.
std::atomic<int> g_level{static_cast<int>(Level::warn)};
}  // namespace detail

namespace {
std::atomic<int> g_rank{-1};

const char* level_name(Level l) {
  switch (l) {
    case Level::error: return "ERROR";
    case Level::warn: return "WARN";
    case Level::info: return "INFO";
    case Level::debug: return "DEBUG";
    case Level::trace: return "TRACE";
  }
  return "?";
}

// Config parses INTERLACE_LOG (the contract: one parser per variable); here an invalid
// value is only a warning, as there is no caller yet to raise an error to.
struct EnvLevel {
  EnvLevel() {
    try {
      const std::string v = log_level_from_env();
      Level l;
      if (!v.empty() && parse_level(v, &l)) set_level(l);
    } catch (const std::exception& e) {
      write(Level::warn, std::string("ignoring ") + e.what());
    }
  }
};
EnvLevel g_env_level;
}  // namespace

void set_level(Level l) noexcept { detail::g_level.store(static_cast<int>(l), std::memory_order_relaxed); }
Level level() noexcept { return static_cast<Level>(detail::g_level.load(std::memory_order_relaxed)); }
void set_rank(int rank) noexcept { g_rank.store(rank, std::memory_order_relaxed); }

bool parse_level(const std::string& s, Level* out) noexcept {
  static const struct { const char* name; Level level; } names[] = {
      {"error", Level::error}, {"warn", Level::warn},   {"warning", Level::warn},
      {"info", Level::info},   {"debug", Level::debug}, {"trace", Level::trace},
  };
  for (const auto& n : names) {
    if (strcasecmp(s.c_str(), n.name) == 0) {
      *out = n.level;
      return true;
    }
  }
  return false;
}

void write(Level l, const std::string& msg) {
  int rank = g_rank.load(std::memory_order_relaxed);
  std::string line = "[interlace r";
  line += rank >= 0 ? std::to_string(rank) : std::string("?");
  line += "] ";
  line += level_name(l);
  line += ": ";
  line += msg;
  line += '\n';
  // Preserve errno: callers often log right before throw_system_error().
  int saved = errno;
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;  // nowhere left to report a failing stderr
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  errno = saved;
}

}  // namespace interlace::log
