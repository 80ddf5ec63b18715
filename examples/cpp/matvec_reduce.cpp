// Distributed matrix-vector product with a reduce (the ACCL+ DLRM use case, §6.2):
// the matrix is split by columns, each rank multiplies its column block with its
// slice of x, and a sum-reduce to rank 0 adds the partial results into y = A x.
// Rank 0 checks y against a serial product of the whole matrix.
//
//   interlace run -n 4 interlace-example-matvec_reduce [rows cols] [algorithm]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/interlace.hpp"

using namespace interlace;

// Entry (i, j) of the matrix and x[j]: every rank can produce any part of them,
// so rank 0 can check the result without receiving the whole matrix.
static float a_at(size_t i, size_t j) { return static_cast<float>((i * 7 + j * 3) % 13) / 13.0f - 0.5f; }
static float x_at(size_t j) { return static_cast<float>(j % 5) * 0.25f; }

int main(int argc, char** argv) {
  const size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4096;
  const size_t cols = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2048;
  const std::string algorithm = argc > 3 ? argv[3] : "";
  Runtime rt = Runtime::init();
  Communicator world = rt.world();
  const int n = world.size(), me = world.rank();

  // My columns: a balanced block [c0, c1).
  const size_t c0 = cols * me / n, c1 = cols * (me + 1) / n;
  std::vector<float> block(rows * (c1 - c0)), partial(rows, 0.0f), y(me == 0 ? rows : 0);
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = c0; j < c1; ++j) block[i * (c1 - c0) + j - c0] = a_at(i, j);
  for (size_t i = 0; i < rows; ++i) {
    float s = 0;
    for (size_t j = c0; j < c1; ++j) s += block[i * (c1 - c0) + j - c0] * x_at(j);
    partial[i] = s;
  }

  // Non-blocking so a real application could overlap it with the next batch.
  coll::Request r = coll::ireduce(world, partial.data(), me == 0 ? y.data() : nullptr, rows, Datatype::float32,
                                  ReduceOp::sum, 0, {algorithm});
  r.wait();

  int ok = 1;
  if (me == 0) {
    double worst = 0;
    for (size_t i = 0; i < rows; ++i) {
      double ref = 0;
      for (size_t j = 0; j < cols; ++j) ref += static_cast<double>(a_at(i, j)) * x_at(j);
      worst = std::max(worst, std::fabs(ref - y[i]) / (1.0 + std::fabs(ref)));
    }
    ok = worst < 1e-4;
    std::printf("matvec_reduce: %zux%zu on %d ranks, reduce algorithm %s, max relative error %.2e: %s\n", rows,
                cols, n, r.algorithm().c_str(), worst, ok ? "OK" : "WRONG");
  }
  coll::bcast(world, &ok, 1, Datatype::int32, 0);
  rt.finalize();
  return ok ? 0 : 1;
}
