// Every collective x every registered algorithm x communicator sizes 1-8, against
// the serial reference, for a sample of datatypes, operators and sizes.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "coll_reference.hpp"
#include "interlace/interlace.hpp"

using namespace interlace;
using namespace colltest;
using coll::Kind;

namespace {

const Datatype kTypes[] = {Datatype::int32, Datatype::float32, Datatype::float64, Datatype::bfloat16,
                           Datatype::float16, Datatype::uint8, Datatype::int64, Datatype::int16};
const ReduceOp kOps[] = {ReduceOp::sum, ReduceOp::max, ReduceOp::min, ReduceOp::prod};

bool reducing(Kind k) {
  return k == Kind::reduce || k == Kind::allreduce || k == Kind::scan || k == Kind::exscan ||
         k == Kind::reduce_scatter || k == Kind::reduce_scatter_block;
}

// Sweeps every kind and algorithm on one communicator; `counts` are per-call sizes.
void sweep(const Communicator& w, const std::vector<size_t>& counts, int seed0) {
  int seed = seed0;
  for (int ki = 1; ki < coll::kKindCount; ++ki) {
    const Kind k = static_cast<Kind>(ki);
    for (const std::string& alg : coll::algorithm_names(k)) {
      for (size_t count : counts) {
        ++seed;
        const Datatype dt = kTypes[seed % 8];
        const coll::Op op = reducing(k) ? coll::Op(kOps[seed % 4]) : coll::Op();
        EXPECT_EQ(check(w, k, alg, dt, op, count, seed, seed % 3 == 0), "");
      }
    }
  }
}

TEST(CollAlgorithms, EveryAlgorithmSizes1To8Small) {
  for (int n = 1; n <= 8; ++n)
    run_ranks_as_threads(n, [](Runtime& rt) { sweep(rt.world(), {0, 1, 5, 37}, 100); });
}

TEST(CollAlgorithms, EveryAlgorithmMediumSizesSegmented) {
  // 40000 elements cross the eager limit and, with 4 KiB segments, make many segments.
  setenv("INTERLACE_COLL_SEGMENT", "4096", 1);
  // Sampled to keep sanitizer runs short: the large size on two odd sizes only.
  for (int n : {2, 3, 5, 8})
    run_ranks_as_threads(n, [n](Runtime& rt) {
      sweep(rt.world(), n == 3 || n == 5 ? std::vector<size_t>{1000, 40000} : std::vector<size_t>{1000}, 200);
    });
  unsetenv("INTERLACE_COLL_SEGMENT");
}

TEST(CollAlgorithms, LargeMessagesMiB) {
  // A few MiB through the default selection (ring/scatter_allgather etc.).
  for (int n : {3, 4}) {
    run_ranks_as_threads(n, [](Runtime& rt) {
      Communicator w = rt.world();
      const size_t count = 1 << 20;  // 4 MiB of float32
      for (Kind k : {Kind::allreduce, Kind::bcast, Kind::reduce, Kind::reduce_scatter_block})
        EXPECT_EQ(check(w, k, "", Datatype::float32, ReduceOp::sum, k == Kind::reduce_scatter_block ? count / 4 : count, 7), "");
      EXPECT_EQ(check(w, Kind::allgather, "", Datatype::int32, ReduceOp::sum, count / 4, 8), "");
      EXPECT_EQ(check(w, Kind::alltoall, "", Datatype::int32, ReduceOp::sum, count / 4, 9), "");
    });
  }
}

TEST(CollAlgorithms, TcpFabric) {
  for (int n : {3, 4})
    run_ranks_as_threads(n, [](Runtime& rt) { sweep(rt.world(), {3, 3000}, 300); }, "tcp");
}

TEST(CollAlgorithms, AllOpsAndTypesAllreduce) {
  run_ranks_as_threads(3, [](Runtime& rt) {
    int seed = 500;
    for (int d = 0; d < kDatatypeCount; ++d)
      for (int o = 0; o < kReduceOpCount; ++o) {
        const Datatype dt = static_cast<Datatype>(d);
        const ReduceOp op = static_cast<ReduceOp>(o);
        if (!reduce_op_supports(op, dt)) continue;
        EXPECT_EQ(check(rt.world(), Kind::allreduce, "", dt, op, 33, ++seed), "");
      }
  });
}

TEST(CollAlgorithms, NonCommutativeUserOpKeepsRankOrder) {
  for (int n : {1, 2, 3, 5, 8}) {
    run_ranks_as_threads(n, [](Runtime& rt) {
      Communicator w = rt.world();
      const coll::Op mm = matmul_op();
      for (Kind k : {Kind::reduce, Kind::allreduce, Kind::scan, Kind::exscan, Kind::reduce_scatter_block})
        for (int seed : {1, 2, 3}) EXPECT_EQ(check(w, k, "", Datatype::uint32, mm, 8, seed, seed == 2), "");
      EXPECT_THROW(coll::allreduce(w, nullptr, nullptr, 0, Datatype::uint32, mm, {"ring"}), Error);
    });
  }
}

}  // namespace
