// tcp fabric: ordering, large frames, bounded queues and blocking waits.
#include <dirent.h>
#include <sys/stat.h>

#include <thread>

#include "tcp_test_util.hpp"

namespace {
using namespace tcp_test;

TEST(TcpFabric, SmallFramesBothWaysAndToSelfInOrder) {
  Job job("small");
  auto a = job.make(0, 2), b = job.make(1, 2);
  Recorder ra, rb;
  EXPECT_STREQ(a->name(), "tcp");
  EXPECT_FALSE(a->remote_read_available(1));
  const int n = 500;
  for (int i = 0; i < n; ++i) {
    auto pa = pattern(8 + i % 300, i), pb = pattern(i % 50, 1000 + i);
    ASSERT_EQ(a->send(1, header(0, 1, i, pa.size()), pa.data(), pa.size()), Errc::ok);
    ASSERT_EQ(b->send(0, header(1, 0, i, pb.size()), pb.data(), pb.size()), Errc::ok);
    if (i % 10 == 0) {
      ASSERT_EQ(a->send(0, header(0, 0, i, 8), pa.data(), 8), Errc::ok);
    }
  }
  ASSERT_TRUE(pump_until({a.get(), b.get()}, {&ra, &rb},
                         [&] { return ra.frames.size() == n + n / 10 && rb.frames.size() == n; }));
  int from_b = 0, from_self = 0;
  for (auto& f : ra.frames) {
    if (f.h.src == 1) {
      EXPECT_EQ(f.h.seq, static_cast<uint32_t>(from_b));
      EXPECT_EQ(f.payload, pattern(from_b % 50, 1000 + from_b));
      ++from_b;
    } else {
      EXPECT_EQ(f.h.seq, static_cast<uint32_t>(from_self * 10));
      ++from_self;
    }
  }
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(rb.frames[i].h.seq, static_cast<uint32_t>(i));
    EXPECT_EQ(rb.frames[i].payload, pattern(8 + i % 300, i));
  }
  EXPECT_TRUE(ra.lost.empty());
  EXPECT_TRUE(rb.lost.empty());
}

int open_sockets() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (dirent* e = readdir(d)) {
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && S_ISSOCK(st.st_mode)) ++n;
  }
  closedir(d);
  return n;
}

TEST(TcpFabric, ReplyTravelsOnTheConnectionThePeerOpened) {
  Job job("reuse");
  int before = open_sockets();
  auto a = job.make(0, 2), b = job.make(1, 2);
  Recorder ra, rb;
  auto p = pattern(8, 1);
  // b answers only after it has admitted a's connection: one socket pair for both
  // directions, so TCP acknowledgements ride on the replies.
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(a->send(1, header(0, 1, i, 8), p.data(), 8), Errc::ok);
    ASSERT_TRUE(pump_until({a.get(), b.get()}, {&ra, &rb}, [&] { return rb.frames.size() == i + 1u; }));
    ASSERT_EQ(b->send(0, header(1, 0, i, 8), p.data(), 8), Errc::ok);
    ASSERT_TRUE(pump_until({a.get(), b.get()}, {&ra, &rb}, [&] { return ra.frames.size() == i + 1u; }));
    EXPECT_EQ(ra.frames[i].h.seq, static_cast<uint32_t>(i));
  }
  EXPECT_EQ(open_sockets() - before, 2 + 2) << "two listeners and both ends of one connection";
}

TEST(TcpFabric, LargeFramesArriveIntactBothWays) {
  Job job("large");
  auto a = job.make(0, 2), b = job.make(1, 2);
  Recorder ra, rb;
  const size_t big = 32u << 20;
  ASSERT_GE(a->max_payload(), big);
  auto pa = pattern(big, 1), pb = pattern(big + 12345, 2), small = pattern(100, 3);
  // Small frames on both sides of a large one check ordering across the two read paths.
  ASSERT_EQ(send_retry(*a, ra, *b, rb, 1, header(0, 1, 0, 100), small.data(), 100), Errc::ok);
  ASSERT_EQ(send_retry(*a, ra, *b, rb, 1, header(0, 1, 1, big), pa.data(), big), Errc::ok);
  ASSERT_EQ(send_retry(*b, rb, *a, ra, 0, header(1, 0, 0, pb.size()), pb.data(), pb.size()), Errc::ok);
  ASSERT_EQ(send_retry(*a, ra, *b, rb, 1, header(0, 1, 2, 100), small.data(), 100), Errc::ok);
  std::fill(pa.begin(), pa.end(), std::byte{0});  // the fabric must have copied what it kept
  ASSERT_TRUE(pump_until({a.get(), b.get()}, {&ra, &rb},
                         [&] { return rb.frames.size() == 3 && ra.frames.size() == 1; }, 30));
  EXPECT_EQ(rb.frames[0].payload, small);
  EXPECT_EQ(rb.frames[1].h.seq, 1u);
  EXPECT_TRUE(rb.frames[1].payload == pattern(big, 1));
  EXPECT_EQ(rb.frames[2].payload, small);
  EXPECT_TRUE(ra.frames[0].payload == pb);
}

TEST(TcpFabric, FullQueueSaysWouldBlockThenDrainsInOrder) {
  Job job("queue");
  auto a = job.make(0, 2), b = job.make(1, 2);
  Recorder ra, rb;
  auto p = pattern(64 * 1024, 9);
  int sent = 0;
  Errc e = Errc::ok;
  // b never progresses here, so kernel buffers and then our queue fill up.
  while (sent < 10000 && (e = a->send(1, header(0, 1, sent, p.size()), p.data(), p.size())) == Errc::ok)
    ++sent;
  ASSERT_EQ(e, Errc::would_block) << "after " << sent << " frames";
  ASSERT_TRUE(pump_until({a.get(), b.get()}, {&ra, &rb},
                         [&] { return rb.frames.size() == static_cast<size_t>(sent); }, 30));
  for (int i = 0; i < sent; ++i) ASSERT_EQ(rb.frames[i].h.seq, static_cast<uint32_t>(i));
  EXPECT_EQ(rb.frames.back().payload, p);
}

TEST(TcpFabric, WaitBlocksUntilTimeoutFrameOrWake) {
  Job job("wait");
  auto a = job.make(0, 2), b = job.make(1, 2);
  Recorder ra, rb;
  uint64_t t0 = now_ns();
  b->wait(0.2);
  EXPECT_GE(now_ns() - t0, 150'000'000u) << "wait must block, not spin";

  std::thread waker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    b->wake();
  });
  t0 = now_ns();
  b->wait(5.0);
  EXPECT_LT(now_ns() - t0, 2'000'000'000u) << "wake() must end wait()";
  waker.join();

  auto p = pattern(8, 1);
  ASSERT_EQ(a->send(1, header(0, 1, 0, 8), p.data(), 8), Errc::ok);
  t0 = now_ns();
  while (rb.frames.empty() && now_ns() - t0 < 5'000'000'000u) {
    b->wait(5.0);
    b->progress(rb);
  }
  EXPECT_EQ(rb.frames.size(), 1u);
  EXPECT_LT(now_ns() - t0, 2'000'000'000u) << "an arriving frame must end wait()";
}

TEST(TcpFabric, RejectsBadArguments) {
  Job job("args");
  auto a = job.make(0, 2);
  auto p = pattern(8, 1);
  EXPECT_EQ(a->send(2, header(0, 2, 0, 8), p.data(), 8), Errc::invalid_rank);
  EXPECT_EQ(a->send(-1, header(0, 1, 0, 8), p.data(), 8), Errc::invalid_rank);
  EXPECT_EQ(a->send(1, header(0, 1, 0, 0), p.data(), a->max_payload() + 1), Errc::invalid_argument);
  EXPECT_THROW(job.make(2, 2), Error);
  job.config.tcp_interface = "203.0.113.77";  // TEST-NET-3: not an address of this host
  EXPECT_THROW(job.make(1, 2), Error);
}

}  // namespace
