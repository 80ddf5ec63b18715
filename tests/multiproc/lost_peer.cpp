// Rank 1 sends three messages (none with argument "silent") and then dies by SIGKILL. Rank 0 must receive the three,
// then get LostPeerError from its next receive within a bounded time, and exits 3
// so the test can tell "detected" from any other outcome.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include <interlace/interlace.hpp>

using namespace interlace;

int main(int argc, char** argv) {
  const bool silent = argc > 1 && std::string(argv[1]) == "silent";
  const int sent = silent ? 0 : 3;
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  if (w.rank() == 1) {
    for (int i = 0; i < sent; ++i) w.send(&i, 1, Datatype::int32, 0, 0);
    std::fflush(stdout);
    kill(getpid(), SIGKILL);
  }
  if (w.rank() == 0) {
    for (int i = 0; i < sent; ++i) {
      int v = -1;
      w.recv(&v, 1, Datatype::int32, 1, 0);
      if (v != i) { std::printf("wrong value %d\n", v); return 1; }
    }
    auto t0 = std::chrono::steady_clock::now();
    try {
      int v;
      w.recv(&v, 1, Datatype::int32, 1, 0);
      std::printf("receive from a dead rank returned\n");
      return 1;
    } catch (const LostPeerError& e) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("rank 0 caught lost peer after %.2f s: %s\n", s, e.what());
      std::fflush(stdout);
      return 3;
    }
  }
  // Other ranks just wait to be stopped by the launcher.
  pause();
}
