// shm-specific conformance: ranks as real processes (fork), lost peers, single copy
// across address spaces, and connection timeouts.
#include <gtest/gtest.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.hpp"

namespace conformance {
namespace {

interlace::fabric::FabricInit init_for(const std::string& job, int rank, int size) {
  interlace::fabric::FabricInit init;
  init.rank = rank;
  init.size = size;
  init.job_id = job;
  init.secret = "test";
  init.config = test_config();
  return init;
}

// What the launcher does after a job whose ranks crashed: remove its segments.
void remove_job_segments(const std::string& job) {
  const std::string prefix = "il-" + job + "-";
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d))
      if (std::string(e->d_name).rfind(prefix, 0) == 0) shm_unlink(("/" + std::string(e->d_name)).c_str());
    closedir(d);
  }
}

// The child side: no gtest macros (they do not cross fork); failures are exit codes.
int send_or_exit(Fabric& f, int peer, uint32_t seq, const void* payload, size_t len, uint64_t aux) {
  FrameHeader h = make_header(f.rank(), peer, seq, payload, len);
  if (aux) h.aux = aux;
  const auto deadline = interlace::Deadline::after(20);
  Recorder sink;
  for (;;) {
    const Errc e = f.send(peer, h, payload, len);
    if (e == Errc::ok) return 0;
    if (e != Errc::would_block || deadline.expired()) _exit(3);
    f.progress(sink);
  }
}

int wait_child(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(ShmProcess, EveryFrameOfAnExitedChildArrivesBeforeItsLoss) {
  const std::string job = unique_job_id("shm");
  constexpr uint32_t kCount = 3000;  // more than the ring holds: the child blocks on us
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto f = interlace::fabric::make_shm_fabric(init_for(job, 1, 2));
    std::vector<std::byte> buf;
    for (uint32_t seq = 0; seq < kCount; ++seq) {
      fill_payload(buf, 8 + seq % 200, 1, 0, seq);
      send_or_exit(*f, 0, seq, buf.data(), buf.size(), 0);
    }
    _exit(0);  // no destructors: like a crash right after the last send
  }
  auto f = interlace::fabric::make_shm_fabric(init_for(job, 0, 2));
  Recorder rec;
  const double t0 = interlace::now_s();
  double last_frame_at = t0;
  while (rec.lost.empty() && interlace::now_s() - t0 < 15) {
    const size_t before = rec.frames.size();
    if (f->progress(rec) == 0) {
      f->check_peers(rec);
      f->wait(0.02);
    }
    if (rec.frames.size() == kCount && before < kCount) last_frame_at = interlace::now_s();
  }
  const double detected_after = interlace::now_s() - last_frame_at;
  EXPECT_EQ(wait_child(child), 0);
  expect_stream(rec, 0, {1}, kCount);
  ASSERT_EQ(rec.lost.size(), 1u) << "no on_peer_lost within 15 s";
  EXPECT_EQ(rec.lost[0].first, 1);
  EXPECT_NE(rec.lost[0].second.find("rank 1"), std::string::npos) << rec.lost[0].second;
  EXPECT_EQ(rec.frames_at_loss, kCount) << "on_peer_lost came before every frame was delivered";
  EXPECT_LT(detected_after, 2.0);
  f.reset();
  remove_job_segments(job);
}

TEST(ShmProcess, SendToAnExitedChildReportsLostPeer) {
  const std::string job = unique_job_id("shm");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto f = interlace::fabric::make_shm_fabric(init_for(job, 1, 2));
    uint64_t x = 42;
    send_or_exit(*f, 0, 0, &x, 8, 0);
    _exit(0);
  }
  auto f = interlace::fabric::make_shm_fabric(init_for(job, 0, 2));
  Recorder rec;
  ASSERT_TRUE(pump_until(*f, rec, [&] { return rec.frames.size() == 1; }, 10));
  EXPECT_EQ(wait_child(child), 0);
  // The child is gone: sending must turn into lost_peer within a bounded time.
  Errc e = Errc::ok;
  const double t0 = interlace::now_s();
  uint64_t x = 7;
  for (uint32_t seq = 0; interlace::now_s() - t0 < 5; ++seq) {
    e = f->send(1, make_header(0, 1, seq, &x, 8), &x, 8);
    if (e == Errc::lost_peer) break;
    if (e == Errc::would_block) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(e, Errc::lost_peer);
  f->check_peers(rec);
  ASSERT_EQ(rec.lost.size(), 1u);
  EXPECT_EQ(rec.lost[0].first, 1);
  f.reset();
  remove_job_segments(job);
}

TEST(ShmProcess, RemoteReadAcrossProcesses) {
  const std::string job = unique_job_id("shm");
  const std::vector<size_t> sizes = {1, 4096 + 5, size_t{64} << 20};
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto f = interlace::fabric::make_shm_fabric(init_for(job, 1, 2));
    std::vector<std::vector<std::byte>> bufs(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) {
      fill_payload(bufs[i], sizes[i], 1, 0, static_cast<uint32_t>(i));
      uint64_t len = sizes[i];
      send_or_exit(*f, 0, static_cast<uint32_t>(i), &len, 8, reinterpret_cast<uint64_t>(bufs[i].data()));
    }
    // Keep the buffers alive until the parent says it is done reading.
    Recorder rec;
    const auto deadline = interlace::Deadline::after(30);
    while (rec.frames.empty() && !deadline.expired())
      if (f->progress(rec) == 0) f->wait(0.05);
    _exit(rec.frames.empty() ? 4 : 0);
  }
  auto f = interlace::fabric::make_shm_fabric(init_for(job, 0, 2));
  Recorder rec;
  ASSERT_TRUE(pump_until(*f, rec, [&] { return rec.frames.size() == sizes.size(); }, 20));
  const bool available = f->remote_read_available(1);
  std::vector<std::byte> local, expect;
  for (size_t i = 0; available && i < sizes.size(); ++i) {
    local.assign(sizes[i], std::byte{0});
    EXPECT_EQ(f->remote_read(1, rec.frames[i].h.aux, local.data(), sizes[i]), Errc::ok) << sizes[i];
    fill_payload(expect, sizes[i], 1, 0, static_cast<uint32_t>(i));
    EXPECT_TRUE(local == expect) << "remote_read of " << sizes[i] << " bytes differs";
  }
  uint64_t done = 1;
  send_retry(*f, rec, 1, make_header(0, 1, 0, &done, 8), &done, 8);
  EXPECT_EQ(wait_child(child), 0);
  f.reset();
  remove_job_segments(job);
  if (!available) GTEST_SKIP() << "process_vm_readv is not permitted here";
}

TEST(ShmProcess, SingleCopyCanBeDisabled) {
  auto init = init_for(unique_job_id("shm"), 0, 1);
  init.config.shm_single_copy = false;
  auto f = interlace::fabric::make_shm_fabric(init);
  uint64_t x = 1;
  Recorder rec;
  send_retry(*f, rec, 0, make_header(0, 0, 0, &x, 8), &x, 8);
  // Rendezvous no longer offers single copy; remote_read itself still serves those
  // that need it whatever the p2p policy (PGAS static data), where the system allows.
  EXPECT_FALSE(f->remote_read_available(0));
  const Errc rc = f->remote_read(0, reinterpret_cast<uint64_t>(&x), &x, 8);
  EXPECT_TRUE(rc == Errc::ok || rc == Errc::unsupported) << interlace::errc_name(rc);
}

TEST(ShmProcess, ConnectTimeoutNamesThePeer) {
  auto init = init_for(unique_job_id("shm"), 0, 2);
  init.config.connect_timeout_s = 0.3;
  auto f = interlace::fabric::make_shm_fabric(init);  // rank 1 never starts
  uint64_t x = 1;
  const double t0 = interlace::now_s();
  try {
    f->send(1, make_header(0, 1, 0, &x, 8), &x, 8);
    FAIL() << "send to a rank that never started succeeded";
  } catch (const interlace::Error& e) {
    EXPECT_EQ(e.code(), Errc::timeout);
    EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos) << e.what();
  }
  EXPECT_LT(interlace::now_s() - t0, 3.0);
}

TEST(ShmProcess, BadArgumentsAreRejected) {
  auto init = init_for(unique_job_id("shm"), 2, 2);
  EXPECT_THROW(interlace::fabric::make_shm_fabric(init), interlace::Error);
  init.rank = 0;
  init.config.shm_ring_bytes = 100;
  try {
    interlace::fabric::make_shm_fabric(init);
    FAIL() << "a 100-byte ring was accepted";
  } catch (const interlace::Error& e) {
    EXPECT_NE(std::string(e.what()).find("100"), std::string::npos) << e.what();
  }
  init.config = test_config();
  auto f = interlace::fabric::make_shm_fabric(init);
  std::vector<std::byte> big(f->max_payload() + 1);
  EXPECT_EQ(f->send(0, make_header(0, 0, 0, big.data(), big.size()), big.data(), big.size()),
            Errc::invalid_argument);
  EXPECT_EQ(f->send(5, make_header(0, 5, 0, nullptr, 0), nullptr, 0), Errc::invalid_rank);
}

int count_job_segments(const std::string& job) {
  const std::string prefix = "il-" + job + "-";
  int n = 0;
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d)) n += std::string(e->d_name).rfind(prefix, 0) == 0;
    closedir(d);
  }
  return n;
}

TEST(ShmProcess, SegmentsAreUnlinkedOnceMappedAndAtDestruction) {
  Job j;
  ASSERT_TRUE(j.make("shm", 3));
  j.run([&](int r, Recorder& rec) {
    const int to = (r + 1) % 3;
    uint64_t x = r;
    send_retry(*j.fabrics[r], rec, to, make_header(r, to, 0, &x, 8), &x, 8);
    EXPECT_TRUE(pump_until(*j.fabrics[r], rec, [&] { return rec.frames.size() == 1; }));
  });
  // Every ring was mapped by both ends, so only the three control segments remain.
  EXPECT_EQ(count_job_segments(j.job_id), 3);
  j.fabrics.clear();
  EXPECT_EQ(count_job_segments(j.job_id), 0) << "segments left after every fabric was destroyed";
}

TEST(ShmProcess, UnreadRingOfAFinishedSenderStillDelivers) {
  // A sender may finish (destroy its fabric) before the receiver maps its ring.
  Job j;
  ASSERT_TRUE(j.make("shm", 2));
  uint64_t x = 5;
  send_retry(*j.fabrics[0], j.recorders[0], 1, make_header(0, 1, 0, &x, 8), &x, 8);
  j.fabrics[0].reset();
  Recorder& rec = j.recorders[1];
  EXPECT_TRUE(pump_until(*j.fabrics[1], rec, [&] { return rec.frames.size() == 1; }, 5));
  j.fabrics.clear();
  EXPECT_EQ(count_job_segments(j.job_id), 0);
}

}  // namespace
}  // namespace conformance
