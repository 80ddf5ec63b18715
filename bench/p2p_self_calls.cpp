// The native twin of bench/mpi_self_calls.c (same loop through Communicator calls).
#include <cstdlib>
#include "interlace/interlace.hpp"
using namespace interlace;
int main(int argc, char** argv) {
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  const int n = std::atoi(argv[1]);
  const char mode = argv[2][0];
  double s = 1.0, r = 0.0;
  for (int i = 0; i < n; ++i) {
    if (mode == 'b') {
      w.send(&s, 1, Datatype::float64, 0, 1);
      w.recv(&r, 1, Datatype::float64, 0, 1);
    } else {
      Request q0 = w.irecv(&r, 1, Datatype::float64, 0, 1);
      Request q1 = w.isend(&s, 1, Datatype::float64, 0, 1);
      q1.wait();
      q0.wait();
    }
  }
  return 0;
}
