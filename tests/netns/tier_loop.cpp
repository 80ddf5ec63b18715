// Allreduces in a loop for the lost-host check of two_tier.sh: every rank runs until
// `seconds` pass or an operation fails, then says which. A rank that sees its peers'
// host vanish must fail (lost peer or INTERLACE_TIMEOUT), not hang.
//   tier_loop SECONDS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "interlace/interlace.hpp"

using namespace interlace;

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 5;
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  const char* host = std::getenv("INTERLACE_HOST");
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  long rounds = 0;
  try {
    while (elapsed() < seconds) {
      double x = w.rank() + 1, sum = 0;
      coll::allreduce(w, &x, &sum, 1, Datatype::float64, ReduceOp::sum);
      const double n = w.size();
      if (sum != n * (n + 1) / 2) {
        std::printf("tier_loop rank %d: wrong sum %g\n", w.rank(), sum);
        return 1;
      }
      // The script cuts a host's link only once every rank is under way.
      if (++rounds == 20) {
        std::printf("tier_loop rank %d running\n", w.rank());
        std::fflush(stdout);
      }
    }
  } catch (const Error& e) {
    std::printf("tier_loop rank %d on %s: error after %.1f s (%ld rounds): %s\n", w.rank(), host ? host : "?",
                elapsed(), rounds, e.what());
    std::fflush(stdout);
    return 3;
  }
  std::printf("tier_loop rank %d: %ld rounds\n", w.rank(), rounds);
  return 0;
}
