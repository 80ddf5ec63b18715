// Issue 15's leak: create a communicator, run one allreduce on it, free it; about
// 730 bytes stayed per cycle (p2p queues and the collective sequence counter and plan
// kept under the dead communicator's id). LSan cannot see it (all still referenced).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <vector>

#include "coll/executor.hpp"
#include "interlace/interlace.hpp"
#include "p2p/p2p_engine.hpp"

using namespace interlace;

namespace {

void cycle(const Communicator& w, int n) {
  for (int i = 0; i < n; ++i) {
    Communicator d = w.dup();
    int x = 1, y = 0;
    coll::allreduce(d, &x, &y, 1, Datatype::int32, ReduceOp::sum);
    ASSERT_EQ(y, w.size());
    d.free();
  }
  coll::barrier(w);  // a progress round after the last free: dead ids are purged there
}

TEST(CollLifecycle, FreedCommunicatorsLeaveNoPerCommunicatorState) {
  run_ranks_as_threads(3, [](Runtime& rt) {
    Communicator w = rt.world();
    p2p::P2pEngine& eng = p2p::engine_of(*w.group_state());
    cycle(w, 2);  // the world's own entries exist from here on
    const size_t p2p_before = eng.comm_entries();
    const size_t coll_before = coll::CollState::of(w.context()).comm_entries();
    cycle(w, 200);
    EXPECT_EQ(eng.comm_entries(), p2p_before);
    EXPECT_EQ(coll::CollState::of(w.context()).comm_entries(), coll_before);
    // A communicator still alive keeps its state.
    Communicator keep = w.dup();
    int x = 1, y = 0;
    coll::allreduce(keep, &x, &y, 1, Datatype::int32, ReduceOp::sum);
    EXPECT_EQ(coll::CollState::of(w.context()).comm_entries(), coll_before + 1);
    coll::allreduce(keep, &x, &y, 1, Datatype::int32, ReduceOp::sum);  // and still works
    EXPECT_EQ(y, 3);
  });
}

size_t resident_bytes() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return static_cast<size_t>(resident) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

TEST(CollLifecycle, ResidentMemoryStaysFlatOverManyCycles) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizers' allocators keep freed memory resident (ASan's quarantine holds up
  // to 256 MiB): resident size says nothing there. The state-counting test above runs.
  GTEST_SKIP() << "resident size is not meaningful under a sanitizer allocator";
#endif
  size_t warm = 0, after = 0;
  run_ranks_as_threads(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    cycle(w, 500);  // pools and caches reach their size first
    if (w.rank() == 0) warm = resident_bytes();
    coll::barrier(w);
    cycle(w, 5000);  // ~7 MiB before the fix (two ranks in this process)
    if (w.rank() == 0) after = resident_bytes();
  });
  ASSERT_GT(warm, 0u);
  EXPECT_LT(after, warm + (2u << 20)) << "grew by " << (after - warm) << " bytes over 5000 cycles";
}

}  // namespace
