// tcp fabric: unauthenticated and malformed input is dropped, logged and never
// delivered, while authenticated traffic keeps flowing.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fabric/tcp/tcp_hello.hpp"
#include "tcp_test_util.hpp"

namespace {
using namespace tcp_test;

// A raw client socket connected to a "host:port" endpoint.
int raw_connect(const std::string& endpoint) {
  size_t colon = endpoint.rfind(':');
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(std::stoi(endpoint.substr(colon + 1))));
  inet_pton(AF_INET, endpoint.substr(0, colon).c_str(), &sa.sin_addr);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0) << endpoint;
  return fd;
}

void raw_send(int fd, const void* p, size_t n) {
  ASSERT_EQ(send(fd, p, n, MSG_NOSIGNAL), static_cast<ssize_t>(n));
}

// True once the fabric has closed the raw socket (EOF or reset).
bool raw_closed(int fd) {
  char c;
  ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

std::vector<std::byte> hello(const std::string& job, const std::string& secret, uint32_t rank,
                             uint32_t target, uint32_t size) {
  return interlace::fabric::tcp::encode_hello(job, secret, rank, target, size);
}

TEST(TcpFabricSecurity, StrayConnectionsAreRejectedWhileGoodTrafficFlows) {
  Job job("stray");
  auto a = job.make(0, 2), b = job.make(1, 2);
  Recorder ra, rb;
  auto p = pattern(64, 5);
  ASSERT_EQ(b->send(0, header(1, 0, 0, 64), p.data(), 64), Errc::ok);
  ASSERT_TRUE(pump_until({a.get(), b.get()}, {&ra, &rb}, [&] { return ra.frames.size() == 1; }));

  std::string addr = job.address(0);
  std::vector<int> bad;
  auto add = [&](const std::vector<std::byte>& bytes) {
    int fd = raw_connect(addr);
    raw_send(fd, bytes.data(), bytes.size());
    bad.push_back(fd);
  };
  add(hello(job.job_id, "wrong secret", 1, 0, 2));
  add(hello(job.job_id, job.secret + "x", 1, 0, 2));       // right prefix, wrong length
  add(hello("another-job", job.secret, 1, 0, 2));
  add(hello(job.job_id, job.secret, 1, 0, 3));              // wrong job size
  add(hello(job.job_id, job.secret, 1, 1, 2));              // addressed to another rank
  add(hello(job.job_id, job.secret, 1, 0, 2));              // rank 1 is already connected
  const char http[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  add(std::vector<std::byte>(reinterpret_cast<const std::byte*>(http),
                             reinterpret_cast<const std::byte*>(http) + sizeof http));
  // A forged frame without any hello: its bytes must never reach the sink.
  auto forged = header(1, 0, 99, 0);
  add(std::vector<std::byte>(reinterpret_cast<std::byte*>(&forged),
                             reinterpret_cast<std::byte*>(&forged) + sizeof forged));

  int seq = 1;
  bool all_closed = pump_until({a.get(), b.get()}, {&ra, &rb}, [&] {
    if (seq < 200) {
      EXPECT_EQ(b->send(0, header(1, 0, seq, 64), p.data(), 64), Errc::ok);
      ++seq;
    }
    for (int fd : bad)
      if (!raw_closed(fd)) return false;
    return seq >= 200;
  });
  for (size_t i = 0; i < bad.size(); ++i) {
    EXPECT_TRUE(raw_closed(bad[i])) << "stray connection " << i << " still open";
    close(bad[i]);
  }
  ASSERT_TRUE(all_closed);
  ASSERT_TRUE(pump_until({a.get(), b.get()}, {&ra, &rb}, [&] { return ra.frames.size() == 200u; }));
  for (size_t i = 0; i < ra.frames.size(); ++i) {
    EXPECT_EQ(ra.frames[i].h.seq, i);
    EXPECT_EQ(ra.frames[i].payload, p);
  }
  EXPECT_TRUE(ra.lost.empty());
  EXPECT_TRUE(rb.lost.empty());
}

TEST(TcpFabricSecurity, MalformedFrameFromAuthenticatedPeerDropsOnlyThatPeer) {
  for (int variant = 0; variant < 3; ++variant) {
    Job job("malformed");
    auto a = job.make(0, 3), b = job.make(1, 3);
    Recorder ra, rb;
    // Rank 2 is a raw socket that knows the secret, sends one good frame, then a bad one.
    int fd = raw_connect(job.address(0));
    auto h = hello(job.job_id, job.secret, 2, 0, 3);
    raw_send(fd, h.data(), h.size());
    auto good = header(2, 0, 0, 4);
    raw_send(fd, &good, sizeof good);
    raw_send(fd, "abcd", 4);
    auto evil = header(2, 0, 1, 4);
    if (variant == 0) evil.magic = 0xdead;
    if (variant == 1) evil.len = a->max_payload() + 1;
    if (variant == 2) evil.dst = 1;  // not for this rank
    raw_send(fd, &evil, sizeof evil);
    raw_send(fd, "efgh", 4);

    auto p = pattern(16, 1);
    int seq = 0;
    ASSERT_TRUE(pump_until({a.get(), b.get()}, {&ra, &rb}, [&] {
      if (seq < 100) {
        EXPECT_EQ(b->send(0, header(1, 0, seq, 16), p.data(), 16), Errc::ok);
        ++seq;
      }
      return !ra.lost.empty() && raw_closed(fd) && seq == 100;
    })) << "variant " << variant;
    ASSERT_TRUE(pump_until({a.get(), b.get()}, {&ra, &rb}, [&] { return ra.frames.size() == 101; }));
    close(fd);
    ASSERT_EQ(ra.lost.size(), 1u);
    EXPECT_EQ(ra.lost[0].first, 2);
    EXPECT_NE(ra.lost[0].second.find("malformed"), std::string::npos) << ra.lost[0].second;
    int from2 = 0;
    for (auto& f : ra.frames) {
      if (f.h.src != 2) continue;
      ++from2;
      EXPECT_EQ(f.h.seq, 0u);  // the frame before the bad one, and nothing after it
    }
    EXPECT_EQ(from2, 1);
    EXPECT_EQ(a->send(2, header(0, 2, 0, 4), "abcd", 4), Errc::lost_peer);
    EXPECT_EQ(a->send(1, header(0, 1, 0, 4), "abcd", 4), Errc::ok);
  }
}

TEST(TcpFabricSecurity, SilentConnectionIsDroppedAfterConnectTimeout) {
  Job job("silent", 0.3);
  auto a = job.make(0, 1);
  Recorder ra;
  int fd = raw_connect(job.address(0));
  uint64_t t0 = now_ns();
  ASSERT_TRUE(pump_until({a.get()}, {&ra}, [&] { return raw_closed(fd); }, 5));
  EXPECT_GE(now_ns() - t0, 250'000'000u);
  close(fd);
}

}  // namespace

namespace {
// The example in docs/wire.md, "TCP fabric handshake".
TEST(TcpFabricSecurity, HelloMatchesDocumentedVector) {
  auto b = interlace::fabric::tcp::encode_hello("j", "ab", 1, 0, 2);
  const unsigned char want[] = {0x49, 0x4c, 0x54, 0x48, 0x01, 0x00, 0x00, 0x00, 0x01,
                                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
                                0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0x6a, 0x61, 0x62};
  ASSERT_EQ(b.size(), sizeof want);
  EXPECT_EQ(std::memcmp(b.data(), want, sizeof want), 0);
  auto ok = interlace::fabric::tcp::check_hello(b.data(), b.size(), "j", "ab", 0, 2);
  EXPECT_EQ(ok.result, interlace::fabric::tcp::HelloCheck::ok);
  EXPECT_EQ(ok.rank, 1u);
  for (size_t n = 0; n < b.size(); ++n)  // every prefix is "need more", never a verdict
    EXPECT_EQ(interlace::fabric::tcp::check_hello(b.data(), n, "j", "ab", 0, 2).result,
              interlace::fabric::tcp::HelloCheck::need_more) << n;
}
}  // namespace
