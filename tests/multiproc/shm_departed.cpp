// Departed peers on 2 ranks (tests/python/test_shm_departed.py). Usage:
//   shm_departed MODE DIR      MODE: finalized | killed | recv | slow | coll
// Rank 1 writes its pid to DIR/rank1.pid before it leaves, so rank 0 can wait until
// the process is really gone before it talks to it (no sleeps, no races):
//   finalized  rank 1 starts, finalizes, exits 0; rank 0 then sends to it
//   killed     rank 1 starts and dies by SIGKILL without a word; rank 0 sends
//   recv       as finalized, but rank 0 receives from it
//   slow       rank 1 starts 3 s late; rank 0 sends at once and must get through
//   coll       rank 0 runs a bcast and leaves; rank 1 runs an allreduce
// Rank 0 prints "rank 0 caught lost peer after S s: MESSAGE" when an operation raises
// LostPeerError, "rank 0 other error after S s: MESSAGE" for any other error.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include <interlace/coll/coll.hpp>
#include <interlace/interlace.hpp>

using namespace interlace;

namespace {

std::string g_dir;

void write_pid() {
  const std::string tmp = g_dir + "/rank1.pid.tmp";
  std::ofstream(tmp) << getpid() << "\n";
  std::rename(tmp.c_str(), (g_dir + "/rank1.pid").c_str());
}

// Gone includes an exited but not yet reaped process (state Z in /proc).
bool process_gone(long pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  if (!f) return true;
  std::string line;
  std::getline(f, line);
  const size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] == 'Z' ||
         line[paren + 2] == 'X';
}

bool wait_for_rank1_to_leave() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  long pid = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (pid == 0) std::ifstream(g_dir + "/rank1.pid") >> pid;
    if (pid != 0 && process_gone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::printf("rank 1 did not leave within 60 s\n");
  return false;
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: shm_departed finalized|killed|recv|slow|coll DIR\n");
    return 2;
  }
  const std::string mode = argv[1];
  g_dir = argv[2];
  if (mode == "slow" && std::getenv("INTERLACE_RANK") && std::string(std::getenv("INTERLACE_RANK")) == "1")
    std::this_thread::sleep_for(std::chrono::seconds(3));
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  int v = 42;
  if (w.rank() == 1) {
    if (mode == "slow") {
      int got = 0;
      w.recv(&got, 1, Datatype::int32, 0, 0);
      std::printf("rank 1 received %d\n", got);
      return got == 42 ? 0 : 1;
    }
    if (mode == "coll") {
      int sum = 0;
      try {
        coll::allreduce(w, &v, &sum, 1, Datatype::int32, ReduceOp::sum);
        std::printf("rank 1 allreduce returned %d\n", sum);
      } catch (const std::exception& e) {
        std::printf("rank 1 allreduce raised: %s\n", e.what());
      }
      return 0;
    }
    std::fflush(stdout);
    write_pid();
    if (mode == "killed") kill(getpid(), SIGKILL);
    rt.finalize();
    return 0;
  }
  if (w.rank() != 0) return 0;
  if (mode == "coll") {
    coll::bcast(w, &v, 1, Datatype::int32, 0);
    std::printf("rank 0 bcast done\n");
    return 0;
  }
  if (mode != "slow" && !wait_for_rank1_to_leave()) return 1;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    if (mode == "recv") {
      w.recv(&v, 1, Datatype::int32, 1, 0);
    } else {
      w.send(&v, 1, Datatype::int32, 1, 0);
    }
    std::printf("rank 0 %s completed after %.2f s\n", mode == "recv" ? "receive" : "send", since(t0));
  } catch (const LostPeerError& e) {
    std::printf("rank 0 caught lost peer after %.2f s: %s\n", since(t0), e.what());
  } catch (const std::exception& e) {
    std::printf("rank 0 other error after %.2f s: %s\n", since(t0), e.what());
  }
  return 0;
}
