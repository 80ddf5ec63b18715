// Distributed-task sessions with ranks as threads: round trips, a device's failure
// reaching the host's taskwait, and a spawn from a device rejected.
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <vector>

#include "interlace/interlace.hpp"
#include "interlace/task/distributed.hpp"

namespace dist = interlace::task::dist;
using interlace::Runtime;

namespace {

void each_fabric(int ranks, const std::function<void(Runtime&)>& fn) {
  for (const char* fabric : {"shm", "tcp"}) {
    SCOPED_TRACE(fabric);
    interlace::run_ranks_as_threads(ranks, fn, fabric);
  }
}

TEST(DistSession, ScatterGatherBroadcastRoundTrip) {
  dist::register_function("gtest.scale", [](const dist::DeviceCall& c) {
    auto* in = static_cast<const int*>(c.regions[0]);
    auto* out = static_cast<int*>(c.regions[1]);
    int k = *static_cast<const int*>(c.regions[2]);
    ASSERT_EQ(c.sizes[0], c.sizes[1]);
    // The devices' communicator works inside the task.
    int sum = c.device;
    int total = 0;
    auto devs = c.session->devices();
    for (int r = 0; r < devs.size(); ++r) {
      int v = sum;
      if (r == devs.rank()) {
        for (int p = 0; p < devs.size(); ++p)
          if (p != r) devs.send(&v, 1, interlace::Datatype::int32, p, 5);
        total += v;
      } else {
        devs.recv(&v, 1, interlace::Datatype::int32, r, 5);
        total += v;
      }
    }
    for (size_t i = 0; i < c.sizes[0] / sizeof(int); ++i) out[i] = in[i] * k + total;
  });
  for (int ranks : {2, 3, 5}) {
    each_fabric(ranks, [&](Runtime& rt) {
      interlace::task::Executor exec({.workers = 2});
      dist::Session s(rt, &exec);
      if (!s.is_host()) return s.serve();
      const int P = s.num_devices(), n = 12 * P;
      std::vector<int> in(n), out(n, -1);
      std::iota(in.begin(), in.end(), 0);
      int k = 3;
      s.spawn("gtest.scale", {dist::scatter(in.data(), n * sizeof(int)),
                              dist::gather(out.data(), n * sizeof(int)),
                              dist::broadcast(&k, sizeof k)});
      exec.taskwait();
      int total = P * (P - 1) / 2;
      for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], in[i] * 3 + total) << i;
    });
  }
}

TEST(DistSession, DeviceFailureReachesTheHostTaskwaitNamingTheDevice) {
  dist::register_function("gtest.fail", [](const dist::DeviceCall& c) {
    if (c.device == c.num_devices - 1) throw std::runtime_error("boom on purpose");
  });
  each_fabric(3, [&](Runtime& rt) {
    interlace::task::Executor exec({.workers = 1});
    dist::Session s(rt, &exec);
    if (!s.is_host()) return s.serve();
    s.spawn("gtest.fail", {});
    try {
      exec.taskwait();
      ADD_FAILURE() << "no error";
    } catch (const interlace::Error& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("device 1 (world rank 2)"), std::string::npos) << m;
      EXPECT_NE(m.find("boom on purpose"), std::string::npos) << m;
    }
    // The session goes on: the devices stayed in step.
    s.spawn("gtest.fail", {});
    EXPECT_THROW(exec.taskwait(), interlace::Error);
  });
}

TEST(DistSession, BadInputNamesTheValues) {
  std::atomic<int> device_rejections{0};
  dist::register_function("gtest.nested", [&](const dist::DeviceCall& c) {
    try {
      c.session->spawn("gtest.nested", {});
    } catch (const interlace::Error& e) {
      if (std::string(e.what()).find("on a device") != std::string::npos) ++device_rejections;
    }
  });
  each_fabric(3, [&](Runtime& rt) {
    interlace::task::Executor exec({.workers = 1});
    dist::Session s(rt, &exec);
    if (!s.is_host()) return s.serve();
    char buf[9];
    auto expect = [&](dist::Clause c, const char* text) {
      try {
        s.spawn("gtest.nested", {c});
        ADD_FAILURE() << "accepted: " << text;
      } catch (const interlace::Error& e) {
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
      }
    };
    expect(dist::scatter(buf, 9), "size 9 bytes does not divide into equal chunks for 2");
    expect(dist::broadcast(buf, static_cast<uint64_t>(-4)), "as signed -4");
    expect(dist::send_to(2, buf, 1), "device 2 does not exist");
    s.spawn("gtest.nested", {});
    exec.taskwait();
  });
  EXPECT_EQ(device_rejections.load(), 4);  // 2 devices x 2 fabrics
}

}  // namespace
