// Helpers for the udp-specific conformance tests: environment overrides (the udp
// fabric reads its options from INTERLACE_UDP_*) and access to its test counters.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <optional>
#include <string>

#include "fabric/udp/udp_fabric.hpp"
#include "harness.hpp"

namespace udp_test {

// Sets variables for one test and restores them after (tests run one at a time;
// fabrics read the environment in their constructor).
class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<const char*, std::string>> vars) {
    for (const auto& [k, v] : vars) {
      const char* old = getenv(k);
      saved_[k] = old ? std::optional<std::string>(old) : std::nullopt;
      setenv(k, v.c_str(), 1);
    }
  }
  ~ScopedEnv() {
    for (const auto& [k, v] : saved_) {
      if (v) setenv(k.c_str(), v->c_str(), 1);
      else unsetenv(k.c_str());
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

inline interlace::fabric::udp::UdpFabric& udp(interlace::fabric::Fabric& f) {
  return dynamic_cast<interlace::fabric::udp::UdpFabric&>(f);
}

}  // namespace udp_test
