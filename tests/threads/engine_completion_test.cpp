// One completion object for every model: a wait over a mix of p2p requests and
// collective runs (what MPI_Waitany does) returns with the one that finished.
#include <gtest/gtest.h>

#include <array>

#include "interlace/engine/completion.hpp"
#include "interlace/engine/context.hpp"
#include "interlace/interlace.hpp"

using namespace interlace;

TEST(EngineCompletion, WaitForAnyOverP2pAndCollectiveReturnsTheFinishedOne) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    int data = 0, go = 1;
    if (w.rank() == 0) {
      Request r = w.irecv(&data, 1, Datatype::int32, 1, 5);
      coll::Request b = coll::ibarrier(w);  // rank 1 joins only after our "go"
      std::array<engine::Completion*, 2> set{r.completion(), b.completion()};
      ASSERT_EQ(w.context().wait_for(set, true), Errc::ok);
      EXPECT_TRUE(r.done());
      EXPECT_FALSE(b.completion()->done) << "the barrier cannot be complete before rank 1 joins";
      EXPECT_EQ(data, 41);
      w.send(&go, 1, Datatype::int32, 1, 6);
      ASSERT_EQ(w.context().wait_for(set, false), Errc::ok);
      EXPECT_TRUE(b.completion()->done);
      b.wait();
      r.wait();
    } else {
      data = 41;
      w.send(&data, 1, Datatype::int32, 0, 5);
      w.recv(&go, 1, Datatype::int32, 0, 6);
      coll::barrier(w);
    }
  });
}

TEST(EngineCompletion, NullEntriesCountAsDoneAndDeadlinesHold) {
  run_ranks_as_threads(1, [](Runtime& rt) {
    engine::Context& ctx = rt.context();
    std::array<engine::Completion*, 1> none{nullptr};
    EXPECT_EQ(ctx.wait_for(none, true), Errc::ok);
    EXPECT_EQ(ctx.wait_for(none, false), Errc::ok);
    engine::Completion never;  // nothing will ever complete it
    std::array<engine::Completion*, 1> one{&never};
    EXPECT_EQ(ctx.wait_for(one, true, Deadline::after(0.05)), Errc::timeout);
  });
}
