// The two-tier fabric (shm to ranks on this host, tcp to the others) with ranks as
// threads and two fake hosts. The general suite runs on it too (fabric "shm+tcp" in
// fabric_traffic_test.cpp and fabric_wait_test.cpp); these are its own properties.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <map>

#include "harness.hpp"
#include "interlace/fabric/registry.hpp"
#include "interlace/fabric/tiers.hpp"

namespace conformance {

std::unique_ptr<Fabric> make_split_tiers(const interlace::fabric::FabricInit& init) {
  const int half = (init.size + 1) / 2;
  std::vector<uint8_t> local(static_cast<size_t>(init.size));
  for (int r = 0; r < init.size; ++r) local[static_cast<size_t>(r)] = (r < half) == (init.rank < half);
  return interlace::fabric::make_tier_fabric(interlace::fabric::make_fabric("shm", init),
                                             interlace::fabric::make_fabric("tcp", init), std::move(local));
}

namespace {

using interlace::fabric::FabricSetting;
using interlace::fabric::parse_fabric_setting;
using interlace::fabric::registry;

double process_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

TEST(TierFabric, EachPeerOnItsHostsFabric) {
  Job job;
  ASSERT_TRUE(job.make("shm+tcp", 4));
  Fabric& f0 = *job.fabrics[0];
  EXPECT_STREQ(f0.name(), "shm+tcp");
  EXPECT_STREQ(f0.fabric_of(1), "shm");
  EXPECT_STREQ(f0.fabric_of(2), "tcp");
  EXPECT_STREQ(f0.fabric_of(3), "tcp");
  EXPECT_EQ(interlace::fabric::describe_peers(f0), "shm to rank 1, tcp to ranks 2-3");
  EXPECT_EQ(interlace::fabric::describe_peers(*job.fabrics[2]), "tcp to ranks 0-1, shm to rank 3");
}

TEST(TierFabric, FramesToOtherHostsMayExceedTheRing) {
  Job job;
  ASSERT_TRUE(job.make("shm+tcp", 4));
  Fabric& f0 = *job.fabrics[0];
  EXPECT_EQ(f0.max_payload_to(1), f0.max_payload());  // shm: bounded by the ring
  ASSERT_GT(f0.max_payload_to(2), f0.max_payload());
  // A frame too big for shm's ring goes whole to a rank on the other host.
  const size_t len = f0.max_payload() * 4;
  std::vector<std::byte> buf;
  fill_payload(buf, len, 0, 2, 0);
  send_retry(f0, job.recorders[0], 2, make_header(0, 2, 0, buf.data(), len), buf.data(), len);
  Recorder& rec2 = job.recorders[2];
  job.run([&](int r, Recorder& rec) {
    if (r == 2) EXPECT_TRUE(pump_until(*job.fabrics[2], rec, [&] { return rec.frames.size() == 1; }));
  });
  expect_stream(rec2, 2, {0}, 1);
  EXPECT_EQ(f0.send(1, make_header(0, 1, 0, buf.data(), len), buf.data(), len), Errc::invalid_argument);
}

TEST(TierFabric, WaitWakesOnAFrameFromEitherTier) {
  Job job;
  ASSERT_TRUE(job.make("shm+tcp", 4));
  Recorder& rec0 = job.recorders[0];
  uint64_t one = 1;
  // Connect both tiers first so the measured waits are not connection set-ups.
  for (int src : {1, 2}) {
    send_retry(*job.fabrics[src], job.recorders[src], 0, make_header(src, 0, 0, &one, 8), &one, 8);
  }
  ASSERT_TRUE(pump_until(*job.fabrics[0], rec0, [&] { return rec0.frames.size() == 2; }));
  for (int src : {1, 2, 1, 2}) {
    const size_t before = rec0.frames.size();
    double waited = -1;
    std::thread receiver([&] {
      Fabric& f = *job.fabrics[0];
      const double t0 = interlace::now_s();
      while (rec0.frames.size() == before && interlace::now_s() - t0 < 10) {
        if (f.progress(rec0) == 0) f.wait(5.0);
      }
      waited = interlace::now_s() - t0;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto seq = static_cast<uint32_t>(before);
    send_retry(*job.fabrics[src], job.recorders[src], 0, make_header(src, 0, seq, &one, 8), &one, 8);
    receiver.join();
    EXPECT_EQ(rec0.frames.size(), before + 1);
    EXPECT_LT(waited, 2.0) << "wait(5) did not return soon after a frame from rank " << src << " ("
                           << job.fabrics[0]->fabric_of(src) << ")";
  }
}

TEST(TierFabric, IdleWaitCostsNoCpuWithTheWakerThread) {
  Job job;
  ASSERT_TRUE(job.make("shm+tcp", 4));
  Fabric& f = *job.fabrics[0];
  // Every rank's waker thread is idle too: the whole process must be quiet.
  const double cpu0 = process_cpu_s(), w0 = interlace::now_s();
  while (interlace::now_s() - w0 < 0.5) f.wait(0.05);
  const double cpu = process_cpu_s() - cpu0;
  EXPECT_LT(cpu, 0.25) << "0.5 s of idle wait() used " << cpu << " s of CPU";
}

// The progress thread's sleep (arm_sleep .. disarm_sleep): an event between arming and
// the sleep (a frame on either tier, a wake()) must end the sleep, as must one during it.
TEST(TierFabric, ArmedSleepEndsOnEitherTierAndOnWake) {
  Job job;
  ASSERT_TRUE(job.make("shm+tcp", 4));
  Fabric& f0 = *job.fabrics[0];
  ASSERT_TRUE(f0.sleeps_concurrently());
  Recorder& rec0 = job.recorders[0];
  uint64_t one = 1;
  for (int src : {1, 2})
    send_retry(*job.fabrics[src], job.recorders[src], 0, make_header(src, 0, 0, &one, 8), &one, 8);
  ASSERT_TRUE(pump_until(f0, rec0, [&] { return rec0.frames.size() == 2; }));
  std::map<int, uint32_t> seq{{1, 1}, {2, 1}};
  // Returns how long sleep_armed(10) took; `before` runs after arming, `during` from
  // another thread 100 ms into the sleep.
  auto sleep_with = [&](const std::function<void()>& before, const std::function<void()>& during) {
    while (f0.progress(rec0) > 0) {
    }
    // A spurious refusal (a late wake-up from the last round) is allowed: retry.
    bool armed = false;
    for (int i = 0; i < 100 && !(armed = f0.arm_sleep()); ++i) f0.progress(rec0);
    EXPECT_TRUE(armed);
    if (before) before();
    std::thread t([&] {
      if (!during) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      during();
    });
    const double t0 = interlace::now_s();
    if (armed) f0.sleep_armed(10.0);
    const double took = interlace::now_s() - t0;
    t.join();
    if (armed) f0.disarm_sleep();
    return took;
  };
  auto frame_from = [&](int src) {
    return [&, src] {
      const uint32_t s = seq[src]++;
      send_retry(*job.fabrics[src], job.recorders[src], 0, make_header(src, 0, s, &one, 8), &one, 8);
    };
  };
  for (int src : {2, 1}) {
    // Sent and arrived before the sleep began (the tcp socket is readable already).
    auto send_and_settle = [&] {
      frame_from(src)();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    };
    EXPECT_LT(sleep_with(send_and_settle, nullptr), 5.0) << "a frame from rank " << src << " (" << f0.fabric_of(src)
                                                           << ") between arm and sleep was missed";
    EXPECT_LT(sleep_with(nullptr, frame_from(src)), 5.0) << "a frame from rank " << src << " ("
                                                         << f0.fabric_of(src) << ") during the sleep was missed";
  }
  EXPECT_LT(sleep_with([&] { f0.wake(); }, nullptr), 5.0) << "a wake() between arm and sleep was missed";
  EXPECT_LT(sleep_with(nullptr, [&] { f0.wake(); }), 5.0) << "a wake() during the sleep was missed";
  EXPECT_TRUE(pump_until(f0, rec0, [&] { return rec0.frames.size() == 6; }));
  expect_stream(rec0, 0, {1, 2}, 3);
}

TEST(TierFabric, RegionsMapOnlyForPeersOnThisHost) {
  Job job;
  ASSERT_TRUE(job.make("shm+tcp", 4));
  for (int r = 0; r < 4; ++r) ASSERT_NE(job.fabrics[r]->expose_region(5, 4096), nullptr) << "rank " << r;
  Fabric& f0 = *job.fabrics[0];
  EXPECT_NE(f0.map_region(1, 5, 4096), nullptr);
  EXPECT_EQ(f0.map_region(2, 5, 4096), nullptr) << "a rank on another host has no mapping";
  EXPECT_FALSE(f0.remote_read_available(3));
  uint64_t x = 0;
  EXPECT_EQ(f0.remote_read(2, reinterpret_cast<uint64_t>(&x), &x, 8), Errc::unsupported);
}

TEST(TierFabric, ALostPeerIsReportedOnEitherTier) {
  Job job;
  ASSERT_TRUE(job.make("shm+tcp", 4));
  uint64_t one = 1;
  Recorder& rec0 = job.recorders[0];
  for (int src : {1, 2}) {
    send_retry(*job.fabrics[src], job.recorders[src], 0, make_header(src, 0, 0, &one, 8), &one, 8);
    send_retry(*job.fabrics[0], rec0, src, make_header(0, src, 0, &one, 8), &one, 8);
  }
  ASSERT_TRUE(pump_until(*job.fabrics[0], rec0, [&] { return rec0.frames.size() == 2; }));
  job.fabrics[1].reset();  // finalized: shm sees its closed flag
  job.fabrics[2].reset();  // tcp sees the connection close
  Fabric& f0 = *job.fabrics[0];
  const double t0 = interlace::now_s();
  while (rec0.lost.size() < 2 && interlace::now_s() - t0 < 10) {
    f0.progress(rec0);
    f0.check_peers(rec0);
    f0.wait(0.05);
  }
  ASSERT_EQ(rec0.lost.size(), 2u);
  std::vector<int> lost{rec0.lost[0].first, rec0.lost[1].first};
  std::sort(lost.begin(), lost.end());
  EXPECT_EQ(lost, (std::vector<int>{1, 2}));
}

TEST(TierFabricSetting, FormsOfTheVariable) {
  const FabricSetting a = parse_fabric_setting("auto", registry());
  ASSERT_TRUE(a.tiers());
  EXPECT_EQ(a.host->name, "shm");
  EXPECT_EQ(a.net->name, "tcp");
  const FabricSetting t = parse_fabric_setting("tcp", registry());
  EXPECT_FALSE(t.tiers());
  EXPECT_EQ(t.single, "tcp");
  const FabricSetting u = parse_fabric_setting("shm+udp", registry());
  ASSERT_TRUE(u.tiers());
  EXPECT_EQ(u.net->name, "udp");
}

TEST(TierFabricSetting, BadValuesNameTheValue) {
  auto message = [](const std::string& v) {
    try {
      parse_fabric_setting(v, registry());
    } catch (const interlace::Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument) << v;
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("tcp+shm").find("'tcp' is a network fabric"), std::string::npos) << message("tcp+shm");
  EXPECT_NE(message("shm+shm").find("'shm' is a host fabric"), std::string::npos) << message("shm+shm");
  EXPECT_NE(message("shm+nope").find("INTERLACE_FABRIC='shm+nope': 'nope'"), std::string::npos)
      << message("shm+nope");
  EXPECT_NE(message("nope").find("INTERLACE_FABRIC='nope'"), std::string::npos) << message("nope");
}

TEST(TierFabricSetting, HostsAreExchangedThroughTheStore) {
  auto store = interlace::bootstrap::shared_memory_store();
  const std::vector<std::string> names{"a", "b", "a", "c.example"};
  std::vector<std::vector<std::string>> got(4);
  std::vector<std::thread> ts;
  for (int r = 0; r < 4; ++r)
    ts.emplace_back([&, r] {
      got[r] = interlace::fabric::exchange_hosts(*store, "x/", r, 4, names[r], 10);
    });
  for (auto& t : ts) t.join();
  for (int r = 0; r < 4; ++r) EXPECT_EQ(got[r], names) << "rank " << r;
  EXPECT_THROW(interlace::fabric::exchange_hosts(*store, "y/", 0, 1, "bad\nname", 1), interlace::Error);
}

}  // namespace
}  // namespace conformance
