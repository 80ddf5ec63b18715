#include <gtest/gtest.h>

#include <thread>

#include "interlace/clock.h"
#include "interlace/core/job_clock.hpp"

namespace {
double fixed(void* ctx) { return *static_cast<double*>(ctx); }
void add(void* ctx, double s) { *static_cast<double*>(ctx) += s; }
}  // namespace

TEST(Clock, ChargeAdvancesOnlyAVirtualClock) {
  EXPECT_EQ(interlace_charge(1.0), 0);  // wall clock: nothing to do
  EXPECT_EQ(interlace_charge(-1.0), -1);
  double v = 1.0;
  interlace::clock::set_source(fixed, &v, false, add);
  EXPECT_EQ(interlace_charge(0.25), 0);
  EXPECT_EQ(interlace_wtime(), 1.25);
  interlace::clock::clear_source(&v);
}

TEST(Clock, WallClockAdvancesAndVirtualSourceOverridesPerThread) {
  EXPECT_EQ(interlace_wtime_is_virtual(), 0);
  double a = interlace_wtime();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_GT(interlace_wtime(), a);
  double v = 42.5;
  interlace::clock::set_source(fixed, &v, false);
  EXPECT_EQ(interlace_wtime(), 42.5);
  EXPECT_EQ(interlace_wtime_is_virtual(), 1);
  double other = 0;
  std::thread([&] { other = interlace_wtime(); }).join();
  EXPECT_NE(other, 42.5);  // thread-local source: another rank-thread keeps its own
  interlace::clock::clear_source(&v);
  EXPECT_EQ(interlace_wtime_is_virtual(), 0);
}

TEST(Clock, ProcessWideSourceReachesHelperThreads) {
  double v = 7.0;
  interlace::clock::set_source(fixed, &v, true);
  double seen = 0;
  std::thread([&] { seen = interlace_wtime(); }).join();
  EXPECT_EQ(seen, 7.0);
  interlace::clock::clear_source(&v);
  std::thread([&] { seen = interlace_wtime(); }).join();
  EXPECT_NE(seen, 7.0);
}
