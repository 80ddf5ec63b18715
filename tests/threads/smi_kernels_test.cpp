// In-rank kernels: LocalStream FIFO order, blocking at both ends, cancellation.
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "interlace/stream/kernels.hpp"

using namespace interlace;
using interlace::stream::LocalStream;
using interlace::stream::run_kernels;

TEST(SmiKernels, CapacityRoundsUpAndRejectsZero) {
  LocalStream<int> s(5);
  EXPECT_EQ(s.capacity(), 8u);
  try {
    LocalStream<int> bad(0);
    FAIL() << "capacity 0 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("capacity 0"), std::string::npos) << e.what();
  }
}

TEST(SmiKernels, TryPushPopAtTheEdges) {
  LocalStream<int> s(2);
  int v = 0;
  EXPECT_FALSE(s.try_pop(v));
  EXPECT_TRUE(s.try_push(1));
  EXPECT_TRUE(s.try_push(2));
  EXPECT_FALSE(s.try_push(3));
  EXPECT_TRUE(s.try_pop(v));
  EXPECT_EQ(v, 1);
  EXPECT_TRUE(s.try_pop(v));
  EXPECT_EQ(v, 2);
  EXPECT_FALSE(s.try_pop(v));
}

// A tiny FIFO forces both ends to block and wake each other many times.
TEST(SmiKernels, PipelineKeepsOrderThroughATinyFifo) {
  constexpr int kN = 50000;
  LocalStream<int> a(4);
  LocalStream<long> b(2);
  long sum = 0;
  bool ordered = true;
  run_kernels({
      [&] { for (int i = 0; i < kN; ++i) a.push(i); },
      [&] { for (int i = 0; i < kN; ++i) b.push(2L * a.pop()); },
      [&] {
        for (int i = 0; i < kN; ++i) {
          long v = b.pop();
          ordered &= (v == 2L * i);
          sum += v;
        }
      },
  });
  EXPECT_TRUE(ordered);
  EXPECT_EQ(sum, 2L * (long(kN) * (kN - 1) / 2));
}

TEST(SmiKernels, BulkPushPopLargerThanCapacity) {
  std::vector<double> in(100003), out(in.size());
  std::iota(in.begin(), in.end(), 0.5);
  LocalStream<double> s(64);
  run_kernels({[&] { s.push_n(in.data(), in.size()); },
               [&] {
                 // Pop in odd-sized pieces so chunks straddle the ring's end.
                 size_t done = 0;
                 while (done < out.size()) {
                   size_t k = std::min<size_t>(37, out.size() - done);
                   s.pop_n(out.data() + done, k);
                   done += k;
                 }
               }});
  EXPECT_EQ(in, out);
}

// The consumer waits longer than the spin phase, so it must sleep and be woken.
TEST(SmiKernels, SleepingConsumerIsWoken) {
  LocalStream<int> s(8);
  int got = 0;
  run_kernels({[&] {
                 std::this_thread::sleep_for(std::chrono::milliseconds(50));
                 s.push(42);
               },
               [&] { got = s.pop(); }});
  EXPECT_EQ(got, 42);
}

// A failing kernel must not leave its partner blocked forever: the partner is
// cancelled and the original exception comes back.
TEST(SmiKernels, FailureCancelsBlockedKernels) {
  LocalStream<int> s(4), never(4);
  bool partner_cancelled = false;
  try {
    run_kernels({[&] {
                   std::this_thread::sleep_for(std::chrono::milliseconds(20));
                   throw std::runtime_error("producer broke");
                 },
                 [&] {
                   try {
                     (void)s.pop();
                   } catch (const Error& e) {
                     partner_cancelled = e.code() == Errc::cancelled;
                     throw;
                   }
                 },
                 [&] {
                   for (;;) never.push(1);  // fills up and blocks
                 }});
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "producer broke");
  }
  EXPECT_TRUE(partner_cancelled);
}

TEST(SmiKernels, EmptyKernelIsRejected) {
  EXPECT_THROW(run_kernels({[] {}, nullptr}), Error);
}
