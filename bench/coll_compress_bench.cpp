// Compressed against uncompressed allreduce (float32 sum) under `interlace run -n N`:
//   coll_compress_bench [--sizes 1048576,4194304,...] [--reps 5] [--methods none,fp16,bf16]
// For each size the methods run interleaved (none fp16 bf16 none fp16 ...), each
// repetition timing max(3, 16 MiB / size) back-to-back calls. Rank 0 prints one JSON
// line per (size, method): the median over repetitions of the mean call time, from
// the slowest rank, and the largest error against the exact sum.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/interlace.hpp"

using namespace interlace;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t a = 0;
  while (a <= s.size()) {
    size_t b = s.find(',', a);
    if (b == std::string::npos) b = s.size();
    if (b > a) out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return out;
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes = {1 << 20, 4 << 20, 16 << 20};
  std::vector<std::string> methods = {"none", "fp16", "bf16"};
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      for (auto& s : split(argv[++i])) sizes.push_back(std::strtoull(s.c_str(), nullptr, 10));
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (a == "--methods" && i + 1 < argc) {
      methods = split(argv[++i]);
    } else {
      std::fprintf(stderr, "coll_compress_bench: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  const int n = w.size();
  for (size_t bytes : sizes) {
    const size_t count = bytes / 4;
    std::vector<float> in(count), out(count);
    // Values whose sum over ranks is exact in float32, so the error is the codec's.
    for (size_t i = 0; i < count; ++i) in[i] = static_cast<float>((i % 1000) * 0.25 + w.rank());
    const int calls = std::max<int>(3, static_cast<int>((16u << 20) / bytes));
    std::vector<std::vector<double>> t(methods.size());
    std::vector<double> err(methods.size(), 0.0);
    for (int r = 0; r < reps; ++r) {
      for (size_t m = 0; m < methods.size(); ++m) {
        coll::Options o;
        if (methods[m] != "none") o.compression = methods[m];
        coll::barrier(w);
        const double t0 = now_s();
        for (int c = 0; c < calls; ++c)
          coll::allreduce(w, in.data(), out.data(), count, Datatype::float32, ReduceOp::sum, o);
        double dt = (now_s() - t0) / calls, slowest = 0;
        coll::allreduce(w, &dt, &slowest, 1, Datatype::float64, ReduceOp::max);
        t[m].push_back(slowest);
        for (size_t i = 0; i < count; i += 997) {
          const double exact = n * ((i % 1000) * 0.25) + n * (n - 1) / 2.0;
          err[m] = std::max(err[m], std::fabs(out[i] - exact) / std::max(1.0, std::fabs(exact)));
        }
      }
    }
    if (w.rank() == 0)
      for (size_t m = 0; m < methods.size(); ++m) {
        auto v = t[m];
        std::sort(v.begin(), v.end());
        std::printf("{\"bytes\": %zu, \"method\": \"%s\", \"ranks\": %d, \"median_us\": %.1f, "
                    "\"best_us\": %.1f, \"max_rel_err\": %.3g}\n",
                    bytes, methods[m].c_str(), n, v[v.size() / 2] * 1e6, v[0] * 1e6, err[m]);
      }
    std::fflush(stdout);
  }
  rt.finalize();
  return 0;
}
