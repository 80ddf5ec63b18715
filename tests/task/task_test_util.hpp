// Helpers for the task runtime tests: bounded waits (never a hang) and a gate.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace task_test {

// Polls pred until it holds or `seconds` pass (generous: the machine is shared).
inline bool eventually(const std::function<bool()>& pred, double seconds = 20.0) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

// A flag one thread opens and others wait for (bounded).
struct Gate {
  std::atomic<bool> open{false};
  void release() { open.store(true); }
  bool wait(double seconds = 20.0) {
    return eventually([this] { return open.load(); }, seconds);
  }
};

}  // namespace task_test
