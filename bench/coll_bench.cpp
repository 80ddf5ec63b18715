// Collective latency under `interlace run -n N`:
//   coll_bench [--sweep] [--max BYTES] [--iters K] [--only COLLECTIVE]
// Default: the algorithm the selection table picks, for bcast, reduce, allreduce,
// allgather, alltoall and barrier, 8 B .. max (per-rank bytes for allgather/
// alltoall). --sweep: every algorithm of each collective (used to choose the
// defaults in src/coll/registry.cpp; docs/collectives.md). Rank 0 prints
// "collective algorithm bytes ranks usec" lines (median of repetitions of the mean).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/interlace.hpp"

using namespace interlace;
using coll::Kind;

namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void run_one(const Communicator& w, Kind k, const std::string& alg, size_t bytes, std::vector<std::byte>& a,
             std::vector<std::byte>& b) {
  coll::Options o{alg};
  const size_t count = bytes / 4;
  switch (k) {
    case Kind::barrier: coll::barrier(w, o); break;
    case Kind::bcast: coll::bcast(w, a.data(), count, Datatype::float32, 0, o); break;
    case Kind::reduce: coll::reduce(w, a.data(), b.data(), count, Datatype::float32, ReduceOp::sum, 0, o); break;
    case Kind::allreduce: coll::allreduce(w, a.data(), b.data(), count, Datatype::float32, ReduceOp::sum, o); break;
    case Kind::allgather: coll::allgather(w, a.data(), b.data(), count, Datatype::float32, o); break;
    case Kind::alltoall: coll::alltoall(w, a.data(), b.data(), count, Datatype::float32, o); break;
    default: break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool sweep = false;
  size_t max = 16u << 20;
  int iters_small = 200;
  std::string only;  // one collective (for profiling)
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--sweep")) sweep = true;
    else if (!std::strcmp(argv[i], "--max") && i + 1 < argc) max = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) iters_small = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
  }
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  const int n = w.size();
  std::vector<std::byte> a(max * n + 64), b(max * n + 64);
  const Kind kinds[] = {Kind::barrier, Kind::bcast, Kind::reduce, Kind::allreduce, Kind::allgather, Kind::alltoall};
  for (Kind k : kinds) {
    if (!only.empty() && only != coll::kind_name(k)) continue;
    std::vector<std::string> algs = sweep ? coll::algorithm_names(k) : std::vector<std::string>{""};
    for (const std::string& alg : algs) {
      for (size_t bytes = 8; bytes <= max; bytes *= (sweep ? 4 : 2)) {
        if (k == Kind::barrier && bytes > 8) break;
        const int iters = std::max(3, static_cast<int>(iters_small * 4096 / std::max<size_t>(4096, bytes)));
        std::vector<double> reps;
        for (int rep = 0; rep < 5; ++rep) {
          run_one(w, k, alg, bytes, a, b);  // warm-up / resynchronise
          coll::barrier(w);
          const double t0 = now_us();
          for (int it = 0; it < iters; ++it) run_one(w, k, alg, bytes, a, b);
          reps.push_back((now_us() - t0) / iters);
        }
        std::sort(reps.begin(), reps.end());
        double t = reps[2], tmax = 0;
        coll::allreduce(w, &t, &tmax, 1, Datatype::float64, ReduceOp::max);  // the slowest rank counts
        if (w.rank() == 0) {
          const std::string name = alg.empty() ? coll::select(k, bytes, n) : alg;
          std::printf("%-10s %-20s %10zu %3d %12.2f\n", std::string(coll::kind_name(k)).c_str(), name.c_str(),
                      k == Kind::barrier ? size_t{0} : bytes, n, tmax);
          std::fflush(stdout);
        }
      }
    }
  }
  rt.finalize();
  return 0;
}
