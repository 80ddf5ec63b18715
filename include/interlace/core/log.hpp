// Contract: leveled logging to stderr, prefixed with "[interlace <rank>] LEVEL".
// Level comes from INTERLACE_LOG; checks are a relaxed atomic load.
#pragma once
#include <atomic>
#include <string>

namespace interlace::log {

enum class Level : int { error = 0, warn = 1, info = 2, debug = 3, trace = 4 };

void set_level(Level l) noexcept;
Level level() noexcept;
bool parse_level(const std::string& s, Level* out) noexcept;
void set_rank(int rank) noexcept;  // shown in the prefix; -1 = unknown
inline bool enabled(Level l) noexcept;
void write(Level l, const std::string& msg);

namespace detail { extern std::atomic<int> g_level; }
inline bool enabled(Level l) noexcept {
  return static_cast<int>(l) <= detail::g_level.load(std::memory_order_relaxed);
}

}  // namespace interlace::log

#define IL_LOG(lvl, expr)                                                   \
  do {                                                                      \
    if (::interlace::log::enabled(::interlace::log::Level::lvl)) {          \
      std::ostringstream il_log_os_;                                        \
      il_log_os_ << expr;                                                   \
      ::interlace::log::write(::interlace::log::Level::lvl, il_log_os_.str()); \
    }                                                                       \
  } while (0)
#include <sstream>
