// The fabric registry: backends register from their folders; names, scopes and
// options come from there; unknown names are errors that list the known ones.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "interlace/engine/context.hpp"
#include "interlace/fabric/registry.hpp"
#include "interlace/p2p/communicator.hpp"

using namespace interlace;
using namespace interlace::fabric;

namespace {

TEST(FabricRegistry, BuiltinBackendsRegisterThemselvesWithScopeAndOptions) {
  const FabricInfo* shm = registry().find("shm");
  const FabricInfo* tcp = registry().find("tcp");
  ASSERT_NE(shm, nullptr);
  ASSERT_NE(tcp, nullptr);
  EXPECT_EQ(shm->scope, FabricScope::host);
  EXPECT_EQ(tcp->scope, FabricScope::network);
  EXPECT_EQ(registry().best(FabricScope::host), shm);
  EXPECT_EQ(registry().best(FabricScope::network), tcp);
  bool ring = false;
  for (const FabricOption& o : shm->options) ring = ring || o.variable == "INTERLACE_SHM_RING_BYTES";
  EXPECT_TRUE(ring);
  const FabricInfo* ucx = registry().find("ucx");  // built only where libucx is found
  EXPECT_EQ(registry().names(), ucx ? "shm, sim, tcp, ucx, udp" : "shm, sim, tcp, udp");
  if (ucx) {
    EXPECT_EQ(ucx->scope, FabricScope::network);
    EXPECT_LT(ucx->priority, tcp->priority) << "auto must not choose ucx (docs/ucx.md)";
  }
  const FabricInfo* sim = registry().find("sim");
  ASSERT_NE(sim, nullptr);
  EXPECT_LT(sim->priority, shm->priority) << "auto must never choose the simulator";
  const FabricInfo* udp = registry().find("udp");
  ASSERT_NE(udp, nullptr);
  EXPECT_LT(udp->priority, tcp->priority) << "auto must keep choosing tcp";
}

TEST(FabricRegistry, UnknownNameIsAnErrorListingTheKnownOnes) {
  FabricInit init;
  try {
    make_fabric("infiniband", init);
    FAIL() << "an unknown fabric was created";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    const std::string m = e.what();
    EXPECT_NE(m.find("infiniband"), std::string::npos) << m;
    EXPECT_NE(m.find("shm, sim, tcp, "), std::string::npos) << m;  // then ucx where built, udp
  }
}

TEST(FabricRegistry, DuplicateOrIncompleteRegistrationsAreRefused) {
  Registry r;
  EXPECT_THROW(r.add(FabricInfo{"x", "", FabricScope::host, 0, {}, nullptr}), Error);
  r.add(FabricInfo{"x", "", FabricScope::host, 0, {}, [](const FabricInit&) { return std::unique_ptr<Fabric>(); }});
  EXPECT_THROW(r.add(FabricInfo{"x", "", FabricScope::host, 0, {}, [](const FabricInit&) { return std::unique_ptr<Fabric>(); }}), Error);
}

TEST(FabricRegistry, AFabricRegisteredAtRunTimeIsChosenByName) {
  // A test backend that wraps shm: registering it is all it takes to use it by name.
  static std::atomic<bool> made{false};  // set by rank threads
  if (!registry().find("test_wrapped_shm"))
    registry().add(FabricInfo{"test_wrapped_shm", "shm under another name", FabricScope::host, -1, {},
                              [](const FabricInit& i) {
                                made = true;
                                return registry().find("shm")->make(i);
                              }});
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    int v = w.rank() == 0 ? 42 : 0;
    if (w.rank() == 0) w.send(&v, 1, Datatype::int32, 1, 0);
    else w.recv(&v, 1, Datatype::int32, 0, 0);
    if (w.rank() == 1) EXPECT_EQ(v, 42);
  }, "test_wrapped_shm");
  EXPECT_TRUE(made);
  EXPECT_THROW(run_ranks_as_threads(1, [](Runtime&) {}, "no_such_fabric"), Error);
}

}  // namespace
