// The plan cache (src/coll/plan_cache.cpp): repeated calls reuse their schedule and
// stay correct as the data changes; calls in flight at once, eviction, registry
// changes and shutdown (an idle plan must not keep the runtime alive).
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <vector>

#include "coll/algorithms/builtin.hpp"
#include "coll/executor.hpp"
#include "interlace/interlace.hpp"
#include "p2p/p2p_engine.hpp"

using namespace interlace;
using coll::Kind;

namespace {

size_t plan_count(const Communicator& w) { return coll::CollState::of(w.context()).plans.size(); }

coll::Options algorithm(const char* name) {
  coll::Options o;
  o.algorithm = name;
  return o;
}

TEST(CollPlanCache, RepeatedCallsReuseTheirPlanAndStayCorrect) {
  for (int n : {1, 2, 3, 4}) {
    run_ranks_as_threads(n, [n](Runtime& rt) {
      Communicator w = rt.world();
      const int r = w.rank();
      std::vector<int> in(3), out(3 * n), big(3 * n), got(n);
      for (int it = 0; it < 40; ++it) {
        for (int i = 0; i < 3; ++i) in[i] = (r + 1) * (it + i);
        coll::allreduce(w, in.data(), out.data(), 3, Datatype::int32, ReduceOp::sum);
        for (int i = 0; i < 3; ++i) ASSERT_EQ(out[i], n * (n + 1) / 2 * (it + i)) << "iteration " << it;
        coll::reduce(w, in.data(), out.data(), 3, Datatype::int32, ReduceOp::max, it % n);
        if (r == it % n) {
          ASSERT_EQ(out[0], n * it);
        }
        int b = r == it % n ? 1000 + it : -1;
        coll::bcast(w, &b, 1, Datatype::int32, it % n);
        ASSERT_EQ(b, 1000 + it);
        coll::allgather(w, in.data(), big.data(), 3, Datatype::int32);
        for (int q = 0; q < n; ++q) ASSERT_EQ(big[3 * q + 1], (q + 1) * (it + 1));
        for (int q = 0; q < n; ++q) big[q] = r * 100 + q + it;  // block q goes to rank q
        coll::alltoall(w, big.data(), got.data(), 1, Datatype::int32);
        for (int q = 0; q < n; ++q) ASSERT_EQ(got[q], q * 100 + r + it);
        coll::barrier(w);
      }
      // One plan per distinct call shape (reduce and bcast: one per root), not per call.
      // One rank completes barrier, reduce, allreduce and alltoall without a plan.
      EXPECT_EQ(plan_count(w), n == 1 ? size_t{2} : static_cast<size_t>(4 + 2 * n));
    });
  }
}

// One rank: barrier, reduce, allreduce and alltoall complete in the call as copies,
// with no plan, Run or lock; the results, IN_PLACE and the op check stay as on more ranks.
TEST(CollPlanCache, OneRankCompletesWithoutAPlan) {
  run_ranks_as_threads(1, [](Runtime& rt) {
    Communicator w = rt.world();
    for (int it = 0; it < 3; ++it) {
      coll::barrier(w);
      float in[2] = {1.5f + it, -2.0f}, out[2] = {0, 0};
      coll::reduce(w, in, out, 2, Datatype::float32, ReduceOp::sum, 0);
      EXPECT_EQ(out[1], -2.0f);
      EXPECT_EQ(out[0], 1.5f + it);
      double a[3] = {1, 2, 3}, b[3] = {0, 0, 0};
      coll::allreduce(w, a, b, 3, Datatype::float64, ReduceOp::max);
      EXPECT_EQ(b[2], 3.0);
      coll::allreduce(w, coll::IN_PLACE, b, 3, Datatype::float64, ReduceOp::min);
      EXPECT_EQ(b[0], 1.0);
      coll::reduce(w, coll::IN_PLACE, b, 3, Datatype::float64, ReduceOp::sum, 0);
      EXPECT_EQ(b[1], 2.0);
      int s[2] = {7, 8}, r[2] = {0, 0};
      coll::alltoall(w, s, r, 2, Datatype::int32);
      EXPECT_EQ(r[0], 7);
      EXPECT_EQ(r[1], 8);
      coll::Request q = coll::ibarrier(w);
      EXPECT_TRUE(q.test());
    }
    EXPECT_EQ(plan_count(w), 0u);
    float f = 1, g = 0;
    EXPECT_THROW(coll::allreduce(w, &f, &g, 1, Datatype::float32, ReduceOp::band), Error);
    EXPECT_THROW(coll::reduce(w, &f, &g, 1, Datatype::float32, ReduceOp::sum, 1), Error);
    // A requested algorithm still runs its schedule.
    coll::allreduce(w, &f, &g, 1, Datatype::float32, ReduceOp::sum, algorithm("ring"));
    EXPECT_EQ(g, 1.0f);
    EXPECT_EQ(plan_count(w), 1u);
  });
}

TEST(CollPlanCache, SameCallInFlightTwiceRunsUncachedBeside) {
  run_ranks_as_threads(3, [](Runtime& rt) {
    Communicator w = rt.world();
    for (int it = 0; it < 10; ++it) {
      std::vector<coll::Request> bars;
      for (int i = 0; i < 3; ++i) bars.push_back(coll::ibarrier(w));
      for (int i = 2; i >= 0; --i) bars[i].wait();
    }
    // A finished request still held keeps its Run: the next equal call runs beside it.
    long x = w.rank(), y = 0;
    coll::Request first = coll::iallreduce(w, &x, &y, 1, Datatype::int64, ReduceOp::sum);
    first.wait();
    EXPECT_EQ(y, 3);
    x = 10 * w.rank();
    coll::Request second = coll::iallreduce(w, &x, &y, 1, Datatype::int64, ReduceOp::sum);
    second.wait();
    EXPECT_EQ(y, 30);
    EXPECT_EQ(first.algorithm(), "recursive_doubling");
  });
}

TEST(CollPlanCache, ManyShapesEvictIdlePlans) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<int> in(100), out(100);
    for (int round = 0; round < 3; ++round)
      for (int k = 1; k <= 50; ++k) {
        std::iota(in.begin(), in.end(), w.rank() + round);
        coll::allreduce(w, in.data(), out.data(), k, Datatype::int32, ReduceOp::sum);
        ASSERT_EQ(out[k - 1], 2 * (k - 1) + 1 + 2 * round);
      }
    EXPECT_LE(plan_count(w), 32u);
    EXPECT_GE(plan_count(w), 16u);
  });
}

TEST(CollPlanCache, LargeScratchIsNotKept) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<float> x(512 * 1024, 1.0f), y(x.size());
    coll::allreduce(w, x.data(), y.data(), 4, Datatype::float32, ReduceOp::sum, algorithm("ring"));
    EXPECT_EQ(plan_count(w), 1u);
    // 1 MiB of scratch (the ring's landing zones for incoming blocks): not cached.
    for (int i = 0; i < 2; ++i)
      coll::allreduce(w, x.data(), y.data(), x.size(), Datatype::float32, ReduceOp::sum, algorithm("ring"));
    EXPECT_EQ(y.back(), 2.0f);
    EXPECT_EQ(plan_count(w), 1u);
  });
}

TEST(CollPlanCache, IdlePlansDoNotKeepTheRuntimeAlive) {
  std::weak_ptr<p2p::RuntimeState> state[2];
  run_ranks_as_threads(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    Communicator d = w.dup();
    int x = 1, y = 0;
    for (int i = 0; i < 3; ++i) coll::allreduce(d, &x, &y, 1, Datatype::int32, ReduceOp::sum);
    coll::Request kept = coll::ibarrier(w);
    kept.wait();
    // A cached run that failed (counts differ) must not keep it alive either.
    int buf[8] = {};
    if (w.rank() == 0) {
      coll::bcast(w, buf, 4, Datatype::int32, 0);
    } else {
      EXPECT_THROW(coll::bcast(w, buf, 8, Datatype::int32, 0), Error);
    }
    EXPECT_GT(plan_count(w), 0u);
    state[w.rank()] = w.group_state()->rt;
  });
  EXPECT_TRUE(state[0].expired());
  EXPECT_TRUE(state[1].expired()) << "the rank whose cached run failed";
}

// Runs last in this file: afterwards recursive_doubling is a re-registered (uncached) algorithm.
TEST(CollPlanCache, RegistryChangesInvalidatePlans) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    int x = 1, y = 0;
    coll::allreduce(w, &x, &y, 1, Datatype::int32, ReduceOp::sum, algorithm("recursive_doubling"));
    coll::allreduce(w, &x, &y, 1, Datatype::int32, ReduceOp::sum, algorithm("recursive_doubling"));
    coll::barrier(w);
    if (w.rank() == 0) {
      EXPECT_TRUE(coll::unregister_algorithm(Kind::allreduce, "recursive_doubling"));
    }
    coll::barrier(w);
    // A cached plan must not answer for an algorithm that is gone.
    EXPECT_THROW(coll::allreduce(w, &x, &y, 1, Datatype::int32, ReduceOp::sum, algorithm("recursive_doubling")), Error);
    coll::barrier(w);
    if (w.rank() == 0) coll::register_algorithm(coll::algo::allreduce_recursive_doubling());
    coll::barrier(w);
    x = 5;
    coll::allreduce(w, &x, &y, 1, Datatype::int32, ReduceOp::sum, algorithm("recursive_doubling"));
    EXPECT_EQ(y, 10);
  });
}

}  // namespace
