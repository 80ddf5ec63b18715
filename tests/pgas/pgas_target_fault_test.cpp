// A target that cannot serve an operation (its range lies outside the target's memory,
// as when PEs' layouts differ) reports it: the origin's wait or quiet raises, naming
// the PE, instead of the origin hanging or reading garbage. The requests are built by
// hand, because the public calls check the range against the origin's own layout.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/core/error.hpp"
#include "interlace/p2p/communicator.hpp"
#include "pgas/pgas_state.hpp"

using namespace interlace;
using namespace interlace::pgas;

namespace {
class TargetFault : public ::testing::TestWithParam<const char*> {};

void expect_quiet_fails(Pgas& p, const char* what) {
  try {
    p.quiet(p.default_domain());
    ADD_FAILURE() << what << ": quiet returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::string(what) + " at PE 1 failed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("outside"), std::string::npos) << e.what();
  }
}

TEST_P(TargetFault, OutOfRangeAtTheTargetFailsAtTheOrigin) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Pgas& p = Pgas::attach(rt, 1 << 20);
    coll::barrier(rt.world());
    if (p.my_pe() == 0) {
      PgasState& st = p.state();
      DomainState& ds = dom(st, p.default_domain());
      const uint64_t off = p.heap_size() + 64;  // beyond PE 1's heap
      std::vector<char> dest(8, 'x');
      {
        std::lock_guard<engine::OptionalLock> g(p.context().lock());
        const uint64_t cookie = st.next_cookie++;
        st.pending[cookie] = PendingOp{dest.data(), 8, &ds, 1};
        op_issued(st, ds, 1);
        const AmArg args[6] = {kRegionHeap, static_cast<AmArg>(off), static_cast<AmArg>(off >> 32), 8, 0, ds.id};
        send_am(st, 1, kKindRequest, kHGet, kShort, args, 6, nullptr, 0, 0, cookie);
      }
      expect_quiet_fails(p, "get");
      EXPECT_EQ(dest, std::vector<char>(8, 'x'));  // nothing written
      {
        std::lock_guard<engine::OptionalLock> g(p.context().lock());
        op_issued(st, ds, 1);
        const AmArg args[2] = {ds.id, 1u};
        const char data[16] = {};
        send_am(st, 1, kKindRequest, kHPut, kLong, args, 2, data, sizeof data,
                pack_dest(kRegionHeap, off), 0);
      }
      expect_quiet_fails(p, "put");
    }
    coll::barrier(rt.world());
  }, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Fabrics, TargetFault, ::testing::Values("shm", "tcp"));
}  // namespace
