// Simulator speed of the sim fabric (docs/benchmarks.md, "sim fabric speed"): every
// rank sends `msgs` messages of `bytes` to its right neighbour and receives as many
// from its left, on the smi preset over the default fully connected topology (or the
// routes in INTERLACE_ROUTES). Reports simulated packet-hops and frames per second of
// wall time, and the virtual time the traffic took.
//   sim_speed [bytes...]            ranks 2, 4, 8, 16; 2000 messages per rank
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "interlace/clock.h"
#include "interlace/interlace.hpp"

using namespace interlace;

int main(int argc, char** argv) {
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {28, 65536};
  std::printf("ranks bytes msgs/rank wall_s virtual_s frames/s packet-hops/s\n");
  for (size_t bytes : sizes) {
    for (int n : {2, 4, 8, 16}) {
      const int msgs = bytes > 4096 ? 200 : 2000;
      double virt = 0;
      const auto t0 = std::chrono::steady_clock::now();
      run_ranks_as_threads(n, [&](Runtime& rt) {
        Communicator w = rt.world();
        const int r = w.rank();
        std::vector<char> out(bytes, 'a'), in(bytes);
        for (int i = 0; i < msgs; ++i) {
          Request q = w.irecv(in.data(), bytes, Datatype::bytes, (r + n - 1) % n, 0);
          w.send(out.data(), bytes, Datatype::bytes, (r + 1) % n, 0);
          q.wait();
        }
        if (r == 0) virt = interlace_wtime();
      }, "sim");
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      // Data frames only (rendezvous adds control frames of one packet each).
      const double frames = static_cast<double>(n) * msgs * std::ceil(bytes / 65536.0);
      const double packets = static_cast<double>(n) * msgs * std::ceil(bytes / 28.0);
      std::printf("%5d %6zu %9d %6.3f %9.6f %8.0f %13.0f\n", n, bytes, msgs, wall, virt, frames / wall,
                  packets / wall);
      std::fflush(stdout);
    }
  }
  return 0;
}
