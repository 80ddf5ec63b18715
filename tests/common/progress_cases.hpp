// Cases shared by the progress-thread suites (tests/threads/progress_thread_test.cpp
// over each fabric, tests/conformance/tier_progress_test.cpp over two tiers): a rank
// computes without calling the library, which a progress thread must overlap with.
#pragma once
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <vector>

#include "interlace/interlace.hpp"

namespace testutil {

// Computes until `flag` reaches `want` or 60 s pass; true if it did.
inline bool compute_until(const std::atomic<int>& flag, int want) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  volatile double x = 0;
  while (flag.load() < want) {
    for (int k = 0; k < 10000; ++k) x = x + k * 0.5;
    if (std::chrono::steady_clock::now() > give_up) return false;
  }
  return true;
}

// 1 MiB goes by rendezvous: rank 0 starts an ibcast and computes until every peer has
// the data, which needs its answers to their clear-to-send: only its progress thread
// gives them meanwhile.
inline void bcast_from_a_computing_root(interlace::Runtime& rt, std::atomic<int>& peers_done) {
  using namespace interlace;
  constexpr size_t n = 1 << 17;  // doubles
  Communicator w = rt.world();
  std::vector<double> buf(n, w.rank() == 0 ? 2.5 : 0.0);
  coll::barrier(w);
  coll::Request r = coll::ibcast(w, buf.data(), n, Datatype::float64, 0);
  if (w.rank() == 0) {
    EXPECT_TRUE(compute_until(peers_done, w.size() - 1)) << "peers did not finish while the root computed";
    r.wait();
  } else {
    r.wait();
    EXPECT_EQ(buf[0], 2.5);
    EXPECT_EQ(buf[n - 1], 2.5);
    peers_done.fetch_add(1);
  }
  coll::barrier(w);
}

}  // namespace testutil
