// Ranks 0 and 1 bounce a message and report the half round-trip time per size.
//   interlace run -n 2 ./build/examples/cpp/interlace-example-ping_pong
#include <chrono>
#include <cstdio>
#include <vector>

#include <interlace/interlace.hpp>

int main() {
  using interlace::Datatype;
  interlace::Runtime rt = interlace::Runtime::init();
  interlace::Communicator w = rt.world();
  if (w.size() < 2) {
    std::fprintf(stderr, "ping_pong needs 2 ranks (got %d)\n", w.size());
    return 2;
  }
  if (w.rank() < 2) {
    const int peer = 1 - w.rank();
    for (size_t size : {8, 1024, 65536, 1 << 20}) {
      std::vector<char> buf(size, static_cast<char>(size));
      const int iters = size > 65536 ? 200 : 2000;
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < iters; ++i) {
        if (w.rank() == 0) {
          w.send(buf.data(), size, Datatype::bytes, peer, 0);
          w.recv(buf.data(), size, Datatype::bytes, peer, 0);
        } else {
          w.recv(buf.data(), size, Datatype::bytes, peer, 0);
          w.send(buf.data(), size, Datatype::bytes, peer, 0);
        }
      }
      double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      if (w.rank() == 0)
        std::printf("%8zu bytes: %9.3f us half round trip\n", size, us / iters / 2);
    }
  }
  rt.finalize();
}
