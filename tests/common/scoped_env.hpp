// Environment variables set or unset for one scope (a test, a fixture), then put back
// as they were: the test process may itself run under Slurm or mpirun, and engines
// read the environment as they start.
#pragma once
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace testutil {

class ScopedEnv {
 public:
  ScopedEnv() = default;
  ScopedEnv(const char* name, const std::string& value) { set(name, value); }
  ScopedEnv(std::initializer_list<std::pair<const char*, std::string>> vars) {
    for (const auto& [name, value] : vars) set(name, value);
  }
  ~ScopedEnv() { restore(); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

  void set(const char* name, const std::string& value) {
    save(name);
    setenv(name, value.c_str(), 1);
  }
  void unset(const char* name) {
    save(name);
    unsetenv(name);
  }
  // Newest first, so a variable changed twice ends as it was before the first change.
  void restore() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) setenv(it->first.c_str(), it->second->c_str(), 1);
      else unsetenv(it->first.c_str());
    }
    saved_.clear();
  }

 private:
  void save(const char* name) {
    const char* old = std::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace testutil
