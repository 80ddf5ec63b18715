// The TCP store facing hostile or broken clients: each must be cut off alone
// while a well-behaved client keeps being served.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"

using namespace interlace;
using namespace interlace::bootstrap;

namespace {

int raw_connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// True when the server closed the connection (EOF) within the time limit.
// Any bytes sent before the close (a rejection reply) are skipped.
bool closed_by_server(int fd, int ms) {
  Deadline d = Deadline::after(ms / 1000.0);
  char buf[512];
  while (!d.expired()) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return true;
  }
  return false;
}

void send_all(int fd, const std::string& s) {
  ASSERT_EQ(send(fd, s.data(), s.size(), MSG_NOSIGNAL), static_cast<ssize_t>(s.size()));
}

std::string be32(uint32_t v) {
  std::string s(4, '\0');
  s[0] = static_cast<char>(v >> 24);
  s[1] = static_cast<char>(v >> 16);
  s[2] = static_cast<char>(v >> 8);
  s[3] = static_cast<char>(v);
  return s;
}

// A well-formed hello (see docs/wire.md) carrying the given magic and secret.
std::string hello(uint32_t magic, const std::string& secret) {
  std::string body;
  body += '\x01';
  body += be32(magic);
  body += std::string("\x00\x01", 2);  // version 1
  body += static_cast<char>(secret.size() >> 8);
  body += static_cast<char>(secret.size() & 0xff);
  body += secret;
  return be32(static_cast<uint32_t>(body.size())) + body;
}

// Redirects fd 2 into a pipe so the server's log lines can be checked.
class StderrCapture {
 public:
  StderrCapture() {
    if (pipe(pipe_) != 0) throw std::runtime_error("pipe");
    saved_ = dup(2);
    dup2(pipe_[1], 2);
  }
  std::string finish() {
    dup2(saved_, 2);
    close(saved_);
    close(pipe_[1]);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(pipe_[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    close(pipe_[0]);
    return out;
  }
 private:
  int pipe_[2];
  int saved_;
};

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(BootstrapTcpStore, WrongSecretIsRejected) {
  TcpStoreServer server("127.0.0.1", 0, "right");
  try {
    make_tcp_store_client("127.0.0.1", server.port(), "wrong", 2.0);
    FAIL() << "a client with the wrong secret was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::protocol);
    EXPECT_NE(std::string(e.what()).find("secret"), std::string::npos) << e.what();
  }
  auto good = make_tcp_store_client("127.0.0.1", server.port(), "right", 2.0);
  good->set("a", "b");
  EXPECT_EQ(good->get("a", 1.0), "b");
}

TEST(BootstrapTcpStore, HostileClientsDoNotDisturbAGoodOne) {
  TcpStoreServer server("127.0.0.1", 0, "job-secret");
  int port = server.port();
  auto good = make_tcp_store_client("127.0.0.1", port, "job-secret", 2.0);
  good->set("before", "1");

  // A good client parked in a blocking get while the attacks happen.
  std::string parked;
  std::thread waiter([&] {
    auto c = make_tcp_store_client("127.0.0.1", port, "job-secret", 2.0);
    parked = c->get("release", 5.0);
  });

  struct Case { const char* what; std::string bytes; };
  const Case cases[] = {
      {"garbage text", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"},
      {"wrong magic", hello(0xdeadbeef, "job-secret")},
      {"wrong secret", hello(0x494C5354, "job-secreT")},
      {"oversized length", be32(0x7fffffff) + "x"},
      {"zero length", be32(0)},
      {"set before hello", be32(4) + std::string("\x02\x00\x01k", 4)},
      {"truncated hello", be32(3) + std::string("\x01\x49\x4c", 3)},
  };
  StderrCapture capture;
  for (const Case& c : cases) {
    int fd = raw_connect(port);
    ASSERT_GE(fd, 0);
    send_all(fd, c.bytes);
    EXPECT_TRUE(closed_by_server(fd, 2000)) << c.what;
    close(fd);
    // The good client is served between every attack.
    EXPECT_EQ(good->get("before", 1.0), "1") << "after " << c.what;
  }

  // An authenticated client that then sends a malformed request is cut off too.
  {
    int fd = raw_connect(port);
    ASSERT_GE(fd, 0);
    send_all(fd, hello(0x494C5354, "job-secret"));
    send_all(fd, be32(2) + std::string("\x09\x00", 2));  // unknown op 9
    EXPECT_TRUE(closed_by_server(fd, 2000));
    close(fd);
  }
  // A client that vanishes mid-message costs nothing and is not an error.
  {
    int fd = raw_connect(port);
    send_all(fd, hello(0x494C5354, "job-secret").substr(0, 5));
    close(fd);
  }
  EXPECT_EQ(good->get("before", 1.0), "1");
  std::string logged = capture.finish();
  // One error line per hostile connection, each saying why.
  EXPECT_EQ(count(logged, "] ERROR: tcp store server"), std::size(cases) + 1) << logged;
  EXPECT_NE(logged.find("wrong job secret"), std::string::npos) << logged;
  EXPECT_NE(logged.find("bad magic"), std::string::npos) << logged;
  EXPECT_NE(logged.find("unknown op 9"), std::string::npos) << logged;

  good->set("release", "go");
  waiter.join();
  EXPECT_EQ(parked, "go");
  EXPECT_EQ(good->add("n", 2), 2);
}

TEST(BootstrapTcpStore, ClientRetriesUntilServerAppears) {
  // Reserve a free port, release it, then start the server there a little later.
  int port;
  {
    TcpStoreServer probe("127.0.0.1", 0, "s");
    port = probe.port();
  }
  std::unique_ptr<TcpStoreServer> server;
  std::thread starter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    server = std::make_unique<TcpStoreServer>("127.0.0.1", port, "s");
  });
  auto c = make_tcp_store_client("127.0.0.1", port, "s", 5.0);
  starter.join();
  c->set("x", "1");
  EXPECT_EQ(c->get("x", 1.0), "1");
}

TEST(BootstrapTcpStore, ConnectTimesOutWithoutServer) {
  int port;
  {
    TcpStoreServer probe("127.0.0.1", 0, "s");
    port = probe.port();
  }
  uint64_t t0 = now_ns();
  try {
    make_tcp_store_client("127.0.0.1", port, "s", 0.3);
    FAIL() << "connected to nothing";
  } catch (const TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(port)), std::string::npos) << e.what();
  }
  EXPECT_LT((now_ns() - t0) * 1e-9, 3.0);
}

TEST(BootstrapTcpStore, ServerShutdownIsALostPeer) {
  auto server = std::make_unique<TcpStoreServer>("127.0.0.1", 0, "s");
  auto c = make_tcp_store_client("127.0.0.1", server->port(), "s", 2.0);
  c->set("k", "v");
  server.reset();
  EXPECT_THROW(c->get("k2", 1.0), LostPeerError);
}
