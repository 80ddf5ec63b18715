// Shared by the streaming-channel benchmarks (bench/stream_*.cpp): a start barrier
// over p2p, the median of repetitions and one JSON line per result, which
// bench/run_stream.py collects.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <interlace/interlace.hpp>

#include "bench_common.h"

namespace streambench {

// Both ranks leave at nearly the same time: a zero-byte round trip over p2p (not over
// channels, so the thing measured is not also the thing that synchronises).
inline void barrier(const interlace::Communicator& w) {
  char b = 0;
  const int peer = 1 - w.rank();
  if (w.rank() == 0) {
    w.send(&b, 0, interlace::Datatype::bytes, peer, 77);
    w.recv(&b, 0, interlace::Datatype::bytes, peer, 78);
  } else {
    w.recv(&b, 0, interlace::Datatype::bytes, peer, 77);
    w.send(&b, 0, interlace::Datatype::bytes, peer, 78);
  }
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// {"bench": ..., "impl": ..., "size": ..., "value": ..., "unit": ..., "reps": ...}
inline void report(const char* bench, const std::string& impl, long size, double value,
                   const char* unit, size_t reps) {
  std::printf("{\"bench\": \"%s\", \"impl\": \"%s\", \"size\": %ld, \"value\": %.6g, \"unit\": \"%s\", "
              "\"reps\": %zu}\n",
              bench, impl.c_str(), size, value, unit, reps);
  std::fflush(stdout);
}

inline bool has_flag(int argc, char** argv, const char* flag) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], flag)) return true;
  return false;
}

}  // namespace streambench
