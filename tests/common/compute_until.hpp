// A rank that computes without calling the library: what a progress thread must
// overlap with (tests of INTERLACE_PROGRESS=thread).
#pragma once
#include <atomic>
#include <chrono>

namespace testutil {

// Computes until `flag` reaches `want` or 60 s pass; true if it did.
inline bool compute_until(const std::atomic<int>& flag, int want) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  volatile double x = 0;
  while (flag.load() < want) {
    for (int k = 0; k < 10000; ++k) x = x + k * 0.5;
    if (std::chrono::steady_clock::now() > give_up) return false;
  }
  return true;
}

}  // namespace testutil
