// Conformance: blocking wait, wake and single-copy reads, on every backend.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "harness.hpp"

namespace conformance {
namespace {

class FabricWait : public testing::TestWithParam<std::string> {};

#define MAKE_OR_SKIP(job, n)                                            \
  do {                                                                  \
    if (!(job).make(GetParam(), (n))) {                                 \
      if (!(job).skip_reason.empty()) GTEST_SKIP() << (job).skip_reason; \
      return;                                                           \
    }                                                                   \
  } while (0)

double thread_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

TEST_P(FabricWait, WaitReturnsWhenAFrameArrivesFromAnotherThread) {
  Job job;
  MAKE_OR_SKIP(job, 2);
  // Connect first so that the measured wait is not a connection setup.
  uint64_t one = 1;
  Recorder& rec1 = job.recorders[1];
  send_retry(*job.fabrics[0], job.recorders[0], 1, make_header(0, 1, 0, &one, 8), &one, 8);
  ASSERT_TRUE(pump_until(*job.fabrics[1], rec1, [&] { return rec1.frames.size() == 1; }));

  double waited = -1;
  std::thread receiver([&] {
    Fabric& f = *job.fabrics[1];
    const double t0 = interlace::now_s();
    while (rec1.frames.size() < 2 && interlace::now_s() - t0 < 10) {
      if (f.progress(rec1) == 0) f.wait(5.0);
    }
    waited = interlace::now_s() - t0;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  send_retry(*job.fabrics[0], job.recorders[0], 1, make_header(0, 1, 1, &one, 8), &one, 8);
  receiver.join();
  EXPECT_EQ(rec1.frames.size(), 2u);
  EXPECT_LT(waited, 1.0) << "wait(5) did not return soon after the frame arrived";
}

TEST_P(FabricWait, WaitTimesOutWithoutBurningTheCpu) {
  Job job;
  MAKE_OR_SKIP(job, 2);
  Fabric& f = *job.fabrics[0];
  const double t0 = interlace::now_s();
  f.wait(0.2);
  const double once = interlace::now_s() - t0;
  EXPECT_LT(once, 0.2 + 0.5) << "wait(0.2) overslept";

  // Idle for 0.4 s in wait(): a blocking wait costs almost no CPU time.
  const double cpu0 = thread_cpu_s(), w0 = interlace::now_s();
  while (interlace::now_s() - w0 < 0.4) f.wait(0.05);
  const double cpu = thread_cpu_s() - cpu0;
  EXPECT_LT(cpu, 0.1) << "idle wait() used " << cpu << " s of CPU in 0.4 s";
}

TEST_P(FabricWait, WakeInterruptsWait) {
  Job job;
  MAKE_OR_SKIP(job, 2);
  std::atomic<bool> woken{false};
  double waited = -1;
  std::thread sleeper([&] {
    Fabric& f = *job.fabrics[0];
    const double t0 = interlace::now_s();
    // wait() may return spuriously; without a working wake() this loop lasts 10 s.
    while (!woken.load() && interlace::now_s() - t0 < 10) f.wait(10.0);
    waited = interlace::now_s() - t0;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  woken = true;
  job.fabrics[0]->wake();
  sleeper.join();
  EXPECT_LT(waited, 1.0) << "wake() did not interrupt wait(10)";
}

TEST_P(FabricWait, RemoteReadReturnsTheRemoteBytes) {
  Job job;
  MAKE_OR_SKIP(job, 2);
  const std::vector<size_t> sizes = {1, 4095, (size_t{1} << 20) + 3, size_t{64} << 20};
  std::vector<std::vector<std::byte>> bufs(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) fill_payload(bufs[i], sizes[i], 0, 1, static_cast<uint32_t>(i));

  // Rank 0 advertises its buffers in frames (address in aux, like a rendezvous RTS).
  Fabric& f0 = *job.fabrics[0];
  Fabric& f1 = *job.fabrics[1];
  Recorder& rec1 = job.recorders[1];
  for (size_t i = 0; i < sizes.size(); ++i) {
    uint64_t len = sizes[i];
    FrameHeader h = make_header(0, 1, static_cast<uint32_t>(i), &len, 8);
    h.aux = reinterpret_cast<uint64_t>(bufs[i].data());
    send_retry(f0, job.recorders[0], 1, h, &len, 8);
  }
  ASSERT_TRUE(pump_until(f1, rec1, [&] { return rec1.frames.size() == sizes.size(); }));
  if (!f1.remote_read_available(0)) GTEST_SKIP() << GetParam() << " has no single-copy path here";

  std::vector<std::byte> local;
  for (size_t i = 0; i < sizes.size(); ++i) {
    local.assign(sizes[i], std::byte{0});
    ASSERT_EQ(f1.remote_read(0, rec1.frames[i].h.aux, local.data(), sizes[i]), Errc::ok) << sizes[i];
    EXPECT_TRUE(local == bufs[i]) << "remote_read of " << sizes[i] << " bytes differs";
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, FabricWait, testing::Values("shm", "tcp", "udp", "sim", "shm+tcp", "ucx"), fabric_param_name);

}  // namespace
}  // namespace conformance
