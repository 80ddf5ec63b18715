// interlace/interlace.hpp alone gives a program p2p, collectives and channels.
#include <gtest/gtest.h>

#include <interlace/interlace.hpp>

using namespace interlace;

TEST(UmbrellaHeader, P2pCollectivesAndChannelsFromOneInclude) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    double x = w.rank() + 1, sum = 0;
    coll::allreduce(w, &x, &sum, 1, Datatype::float64, ReduceOp::sum);
    EXPECT_EQ(sum, 3.0);
    if (w.rank() == 0) {
      stream::SendChannel ch(w, 1, 7, 3, Datatype::int32, 2);
      for (int32_t v : {4, 5, 6}) ch.push(&v);
    } else {
      stream::RecvChannel ch(w, 0, 7, 3, Datatype::int32, 2);
      int32_t got[3];
      for (int32_t& v : got) ch.pop(&v);
      EXPECT_EQ(got[0] + got[1] + got[2], 15);
    }
  });
}
