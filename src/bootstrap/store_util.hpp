// Internal helpers shared by the store implementations.
#pragma once
#include <cerrno>
#include <cstdlib>
#include <string>

#include "interlace/core/error.hpp"

namespace interlace::bootstrap::detail {

// add() keeps counters as decimal text so get() on a counter key reads it too.
inline long long parse_counter(const std::string& key, const std::string& value) {
  if (value.empty()) return 0;
  errno = 0;
  char* end = nullptr;
  long long x = std::strtoll(value.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE)
    // The value is not shown: a file store file may hold anything (never echo
    // data that might not be ours into a message that ends up in logs).
    throw_error(Errc::invalid_argument, "store add on key '" + key + "' whose value (" +
                                            std::to_string(value.size()) +
                                            " bytes) is not an integer");
  return x;
}

inline std::string timeout_text(const std::string& key, double timeout_s, const std::string& where) {
  return "store key '" + key + "' was not set within " + std::to_string(timeout_s) + " s (" +
         where + ")";
}

}  // namespace interlace::bootstrap::detail
