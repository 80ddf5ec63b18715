// The sim fabric in threads mode: the job clock reads virtual time (interlace_wtime,
// MPI_Wtime, interlace::wtime), interlace_charge advances it, runs are deterministic,
// and bad settings are errors naming the value.
#include <gtest/gtest.h>

#include <time.h>

#include <map>
#include <string>
#include <vector>

#include "interlace/clock.h"
#include "interlace/interlace.hpp"
#include "sim_util.hpp"

extern "C" double MPI_Wtime(void);

using namespace interlace;

namespace {

TEST(SimClock, WtimeIsVirtualAndChargeAdvancesIt) {
  std::vector<double> start(2), after(2), got_at(2);
  run_ranks_as_threads(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    const int r = w.rank();
    EXPECT_EQ(interlace_wtime_is_virtual(), 1);
    EXPECT_DOUBLE_EQ(interlace_wtick(), 1e-12);
    start[r] = interlace_wtime();
    EXPECT_EQ(MPI_Wtime(), interlace_wtime());
    EXPECT_EQ(interlace::wtime(), interlace_wtime());
    int32_t x = 5;
    if (r == 0) {
      EXPECT_EQ(interlace_charge(1.5), 0);  // a 1.5 s kernel, no real time spent
      after[r] = interlace_wtime();
      w.send(&x, 1, Datatype::int32, 1, 0);
    } else {
      w.recv(&x, 1, Datatype::int32, 0, 0);
      got_at[r] = interlace_wtime();
    }
    EXPECT_EQ(interlace_charge(-1), -1);
  }, "sim");
  EXPECT_LT(start[0], 1e-3);  // virtual seconds since the job started
  EXPECT_NEAR(after[0] - start[0], 1.5, 1e-9);
  // The message left at 1.5 s and took about a microsecond: the receiver waited for it.
  EXPECT_GT(got_at[1], 1.5);
  EXPECT_LT(got_at[1], 1.5 + 1e-4);
  EXPECT_EQ(interlace_wtime_is_virtual(), 0) << "the clock source must go with the fabric";
}

// A mixed program: ping-pongs, a collective, modelled compute that differs per rank.
std::vector<double> mixed_run(int n) {
  std::vector<double> t(n * 3);
  run_ranks_as_threads(n, [&](Runtime& rt) {
    Communicator w = rt.world();
    const int r = w.rank();
    interlace_charge(1e-6 * (r + 1));
    std::vector<int32_t> v(1000 * (r + 1), r), sum(4);
    const int to = (r + 1) % n, from = (r + n - 1) % n;
    std::vector<int32_t> in(1000 * (from + 1));
    Request q = w.irecv(in.data(), in.size(), Datatype::int32, from, 3);
    w.send(v.data(), v.size(), Datatype::int32, to, 3);
    q.wait();
    t[r * 3] = interlace_wtime();
    int32_t mine[4] = {r, 1, 2, 3};
    coll::allreduce(w, mine, sum.data(), 4, Datatype::int32, ReduceOp::sum);
    t[r * 3 + 1] = interlace_wtime();
    coll::barrier(w);
    t[r * 3 + 2] = interlace_wtime();
  }, "sim");
  return t;
}

TEST(SimDeterminism, SameProgramSameVirtualTimes) {
  const auto a = mixed_run(4);
  const auto b = mixed_run(4);
  EXPECT_EQ(a, b);
  for (double x : a) EXPECT_GT(x, 0);
}

TEST(SimClock, MeasuredComputeIsCharged) {
  simtest::ScopedEnv c("INTERLACE_SIM_COMPUTE", "measured");
  simtest::ScopedEnv s("INTERLACE_SIM_CPU_SCALE", "10");
  double spent = 0;
  run_ranks_as_threads(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    int32_t x = 1;
    if (w.rank() == 0) {
      const double t0 = interlace_wtime();
      timespec a{}, b{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
      volatile double sink = 0;
      do {  // at least 20 ms of this thread's CPU time
        for (int i = 0; i < 100000; ++i) sink = sink + i;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
      } while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9 < 0.02);
      w.send(&x, 1, Datatype::int32, 1, 0);
      spent = interlace_wtime() - t0;
    } else {
      w.recv(&x, 1, Datatype::int32, 0, 0);
    }
  }, "sim");
  EXPECT_GE(spent, 0.2) << "20 ms of CPU at scale 10 must be charged as at least 0.2 virtual s";
}

TEST(SimErrors, UnknownPresetIsNamed) {
  simtest::ScopedEnv p("INTERLACE_SIM_PRESET", "stratix99");
  try {
    run_ranks_as_threads(2, [](Runtime&) {}, "sim");
    FAIL() << "an unknown preset was accepted";
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("stratix99"), std::string::npos) << m;
    EXPECT_NE(m.find("smi, fshmem, accl, cloudfpga"), std::string::npos) << m;
  }
}

TEST(SimErrors, BadValuesAreNamed) {
  const std::map<std::string, std::string> bad = {
      {"INTERLACE_SIM_COMPUTE", "sometimes"}, {"INTERLACE_SIM_R", "0"}, {"INTERLACE_SIM_LINK_GBPS", "fast"}};
  for (const auto& [var, value] : bad) {
    simtest::ScopedEnv e(var.c_str(), value);
    try {
      run_ranks_as_threads(2, [](Runtime&) {}, "sim");
      ADD_FAILURE() << var << "=" << value << " was accepted";
    } catch (const std::exception& ex) {
      EXPECT_NE(std::string(ex.what()).find(var + "=" + value), std::string::npos) << ex.what();
    }
  }
}

TEST(SimPresets, EveryPresetRunsAPingPong) {
  for (const char* p : {"smi", "fshmem", "accl", "cloudfpga"}) {
    simtest::ScopedEnv e("INTERLACE_SIM_PRESET", p);
    double lat = 0;
    run_ranks_as_threads(3, [&](Runtime& rt) {
      Communicator w = rt.world();
      std::vector<char> b(100000);
      if (w.rank() == 0) {
        const double t0 = interlace_wtime();
        w.send(b.data(), b.size(), Datatype::bytes, 2, 0);
        w.recv(b.data(), 1, Datatype::bytes, 2, 0);
        lat = interlace_wtime() - t0;
      } else if (w.rank() == 2) {
        w.recv(b.data(), b.size(), Datatype::bytes, 0, 0);
        w.send(b.data(), 1, Datatype::bytes, 0, 0);
      }
    }, "sim");
    EXPECT_GT(lat, 0) << p;
    EXPECT_LT(lat, 1e-3) << p;
  }
}

}  // namespace
