// Helpers for the udp-specific conformance tests: environment overrides (the udp
// fabric reads its options from INTERLACE_UDP_*) and access to its test counters.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <optional>
#include <string>

#include "fabric/udp/udp_fabric.hpp"
#include "common/scoped_env.hpp"
#include "harness.hpp"

namespace udp_test {

using ScopedEnv = testutil::ScopedEnv;

inline interlace::fabric::udp::UdpFabric& udp(interlace::fabric::Fabric& f) {
  return dynamic_cast<interlace::fabric::udp::UdpFabric&>(f);
}

}  // namespace udp_test
