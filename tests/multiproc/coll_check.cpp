// Collectives as real processes under `interlace run` (tests/python/test_coll.py):
// every collective x every algorithm on a few sizes against the serial reference,
// plus non-blocking collectives on two communicators at once. Prints
// "coll_check OK on N ranks" when every rank passed.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../threads/coll_reference.hpp"
#include "interlace/interlace.hpp"

using namespace interlace;
using namespace colltest;

int main(int argc, char** argv) {
  const bool big = argc > 1 && std::string(argv[1]) == "--big";
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  int failures = 0, seed = 11;
  const Datatype types[] = {Datatype::float32, Datatype::int64, Datatype::bfloat16, Datatype::uint8, Datatype::float64};
  const ReduceOp ops[] = {ReduceOp::sum, ReduceOp::max, ReduceOp::min};
  // A named vector, not a conditional of two initializer_lists: their backing arrays
  // die at the end of the full expression, and the loop read counts from dead stack.
  const std::vector<size_t> counts = big ? std::vector<size_t>{1 << 18} : std::vector<size_t>{0, 3, 5000};
  for (int ki = 1; ki < coll::kKindCount; ++ki) {
    const Kind k = static_cast<Kind>(ki);
    for (const std::string& alg : coll::algorithm_names(k))
      for (size_t count : counts) {
        ++seed;
        const Datatype dt = types[seed % 5];
        const bool red = k == Kind::reduce || k == Kind::allreduce || k == Kind::scan || k == Kind::exscan ||
                         k == Kind::reduce_scatter || k == Kind::reduce_scatter_block;
        std::string err = check(w, k, alg, dt, red ? coll::Op(ops[seed % 3]) : coll::Op(), count, seed, seed % 4 == 0);
        if (!err.empty()) {
          std::fprintf(stderr, "FAILED %s\n", err.c_str());
          ++failures;
        }
      }
  }
  // Overlapping non-blocking collectives on world and a split.
  Communicator half = w.split(w.rank() % 2, 0);
  double x = w.rank(), sum = 0, hmax = 0;
  coll::Request a = coll::iallreduce(w, &x, &sum, 1, Datatype::float64, ReduceOp::sum);
  coll::Request b = coll::iallreduce(half, &x, &hmax, 1, Datatype::float64, ReduceOp::max);
  b.wait();
  a.wait();
  const int n = w.size();
  if (sum != n * (n - 1) / 2.0) ++failures, std::fprintf(stderr, "FAILED overlapping allreduce: %g\n", sum);
  int total = 0;
  coll::allreduce(w, &failures, &total, 1, Datatype::int32, ReduceOp::sum);
  if (w.rank() == 0 && total == 0) std::printf("coll_check OK on %d ranks\n", n);
  rt.finalize();
  return total == 0 ? 0 : 1;
}
