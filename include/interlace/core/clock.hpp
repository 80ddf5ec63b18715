// Contract: monotonic time in seconds / nanoseconds, and a deadline helper.
#pragma once
#include <chrono>
#include <cstdint>

namespace interlace {

inline uint64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
inline double now_s() noexcept { return now_ns() * 1e-9; }

// A deadline of 0 means "never".
struct Deadline {
  uint64_t at_ns = 0;
  static Deadline after(double seconds) noexcept {
    return Deadline{seconds > 0 ? now_ns() + static_cast<uint64_t>(seconds * 1e9) : 0};
  }
  bool expired() const noexcept { return at_ns != 0 && now_ns() >= at_ns; }
};

}  // namespace interlace
