// The TCP store client: one connection, one request in flight at a time (a
// mutex serialises threads sharing the client). See docs/wire.md.
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <thread>

#include "bootstrap/store_util.hpp"
#include "bootstrap/tcp_store_proto.hpp"
#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"

namespace interlace::bootstrap {
using namespace tcpstore;

namespace {

// Non-blocking connect bounded by `wait_ms`, so an unreachable host cannot
// stall us past the caller's timeout. Returns the fd or -1 with errno set.
int connect_once(const addrinfo* ai, int wait_ms) {
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
  if (fd < 0) return -1;
  if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      int e = errno;
      ::close(fd);
      errno = e;
      return -1;
    }
    pollfd p{fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof err;
    if (::poll(&p, 1, wait_ms) != 1) err = ETIMEDOUT;
    else getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      ::close(fd);
      errno = err;
      return -1;
    }
  }
  // Requests are synchronous from here on; blocking I/O keeps the client simple.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

class TcpStoreClient final : public Store {
 public:
  TcpStoreClient(const std::string& host, int port, const std::string& secret, double timeout_s)
      : where_(host + ":" + std::to_string(port)), timeout_s_(timeout_s) {
    if (port < 1 || port > 65535)
      throw_error(Errc::invalid_argument, "tcp store: port " + std::to_string(port) + " is not in 1..65535");
    if (secret.size() > 1024)
      throw_error(Errc::invalid_argument, "tcp store: secret of " + std::to_string(secret.size()) +
                                              " bytes exceeds 1024");
    connect_with_retries(host, port, timeout_s);
    std::string hello;
    put_u8(hello, kHello);
    put_u32(hello, kMagic);
    put_u16(hello, kVersion);
    put_u16(hello, static_cast<uint16_t>(secret.size()));
    hello += secret;
    std::string reply = request(hello, timeout_s);
    if (reply.empty() || static_cast<uint8_t>(reply[0]) != kOk)
      throw_error(Errc::protocol, "tcp store at " + where_ + " refused the hello: " +
                                      (reply.size() > 1 ? reply.substr(1) : std::string("no reason given")));
  }

  ~TcpStoreClient() override {
    if (fd_ >= 0) ::close(fd_);
  }

  void set(const std::string& key, const std::string& value) override {
    check_key(key);
    if (value.size() > kMaxValue)
      throw_error(Errc::invalid_argument, "tcp store: value for key '" + key + "' has " +
                                              std::to_string(value.size()) + " bytes, more than " +
                                              std::to_string(kMaxValue));
    std::string b;
    put_u8(b, kSet);
    put_key(b, key);
    b += value;
    expect_ok(request(b, timeout_s_), "set", key);
  }

  std::string get(const std::string& key, double timeout_s) override {
    check_key(key);
    // Milliseconds on the wire; round up so a tiny timeout does not become "forever" (0).
    uint32_t ms = 0;
    if (timeout_s > 0) ms = static_cast<uint32_t>(std::min(std::ceil(timeout_s * 1000), 4.0e9));
    std::string b;
    put_u8(b, kGet);
    put_u32(b, ms);
    put_key(b, key);
    // The server answers by the deadline; the grace covers a slow network.
    std::string r = request(b, timeout_s > 0 ? timeout_s + 10 : 0);
    if (!r.empty() && static_cast<uint8_t>(r[0]) == kTimedOut)
      throw_error(Errc::timeout, detail::timeout_text(key, timeout_s, "tcp store " + where_));
    expect_ok(r, "get", key);
    return r.substr(1);
  }

  bool check(const std::string& key) override {
    check_key(key);
    std::string b;
    put_u8(b, kCheck);
    put_key(b, key);
    std::string r = request(b, timeout_s_);
    expect_ok(r, "check", key);
    if (r.size() != 2) bad_reply("check", key);
    return r[1] != 0;
  }

  long long add(const std::string& key, long long delta) override {
    check_key(key);
    std::string b;
    put_u8(b, kAdd);
    put_u64(b, static_cast<uint64_t>(delta));
    put_key(b, key);
    std::string r = request(b, timeout_s_);
    expect_ok(r, "add", key);
    Reader rd(r.data() + 1, r.size() - 1);
    auto v = static_cast<long long>(rd.u64());
    if (!rd.done()) bad_reply("add", key);
    return v;
  }

 private:
  void connect_with_retries(const std::string& host, int port, double timeout_s) {
    Deadline deadline = Deadline::after(timeout_s);
    auto pause = std::chrono::milliseconds(10);
    std::string last = "no address";
    for (;;) {
      addrinfo hints{};
      hints.ai_family = AF_UNSPEC;
      hints.ai_socktype = SOCK_STREAM;
      addrinfo* res = nullptr;
      int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
      if (rc != 0) {
        last = std::string("cannot resolve host: ") + gai_strerror(rc);
      } else {
        for (addrinfo* ai = res; ai && fd_ < 0; ai = ai->ai_next) {
          fd_ = connect_once(ai, 1000);
          if (fd_ < 0) last = std::strerror(errno);
        }
        freeaddrinfo(res);
        if (fd_ >= 0) return;
      }
      // The server (rank 0) may simply not be up yet: retry until the deadline.
      if (deadline.expired())
        throw_error(Errc::timeout, "could not connect to tcp store at " + where_ + " within " +
                                       std::to_string(timeout_s) + " s: " + last);
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(250));
    }
  }

  void check_key(const std::string& key) const {
    if (key.size() > kMaxKey)
      throw_error(Errc::invalid_argument, "tcp store: key of " + std::to_string(key.size()) +
                                              " bytes exceeds " + std::to_string(kMaxKey));
  }
  static void put_key(std::string& b, const std::string& key) {
    put_u16(b, static_cast<uint16_t>(key.size()));
    b += key;
  }
  [[noreturn]] void bad_reply(const char* op, const std::string& key) {
    throw_error(Errc::protocol, std::string("tcp store at ") + where_ + ": malformed reply to " +
                                    op + " '" + key + "'");
  }
  void expect_ok(const std::string& r, const char* op, const std::string& key) {
    if (r.empty()) bad_reply(op, key);
    auto st = static_cast<uint8_t>(r[0]);
    if (st == kOk) return;
    if (st == kFailed) throw_error(Errc::invalid_argument, "tcp store at " + where_ + ": " + r.substr(1));
    bad_reply(op, key);
  }

  // Sends one request and returns the reply body. wait_s bounds the wait for
  // the reply (0 = unbounded); a closed connection means the server is gone.
  std::string request(const std::string& body, double wait_s) {
    std::lock_guard<std::mutex> g(mu_);
    if (fd_ < 0) throw_error(Errc::lost_peer, "tcp store at " + where_ + ": connection already lost");
    std::string msg = frame(body);
    for (size_t off = 0; off < msg.size();) {
      ssize_t n = ::send(fd_, msg.data() + off, msg.size() - off, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) lost("sending");
      off += static_cast<size_t>(n);
    }
    Deadline deadline = Deadline::after(wait_s);
    char hdr[4];
    recv_exact(hdr, 4, deadline, wait_s);
    uint32_t len = read_be32(hdr);
    if (len == 0 || len > kMaxValue + 64)
      throw_error(Errc::protocol, "tcp store at " + where_ + ": reply length " + std::to_string(len) +
                                      " is out of range");
    std::string reply(len, '\0');
    recv_exact(reply.data(), len, deadline, wait_s);
    return reply;
  }

  void recv_exact(char* p, size_t n, const Deadline& deadline, double wait_s) {
    while (n > 0) {
      int ms = -1;
      if (deadline.at_ns) {
        uint64_t now = now_ns();
        if (now >= deadline.at_ns) {
          // A late reply would be read as the answer to the next request: the
          // stream is out of step, so give the connection up.
          ::close(fd_);
          fd_ = -1;
          throw_error(Errc::timeout, "tcp store at " + where_ + ": no reply within " +
                                         std::to_string(wait_s) + " s");
        }
        ms = static_cast<int>((deadline.at_ns - now) / 1000000 + 1);
      }
      pollfd pf{fd_, POLLIN, 0};
      int pr = ::poll(&pf, 1, ms);
      if (pr < 0 && errno == EINTR) continue;
      if (pr <= 0) continue;  // re-checks the deadline
      ssize_t got = ::recv(fd_, p, n, 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) lost("receiving");
      p += got;
      n -= static_cast<size_t>(got);
    }
  }

  [[noreturn]] void lost(const char* when) {
    int e = errno;
    ::close(fd_);
    fd_ = -1;
    throw_error(Errc::lost_peer, "tcp store server at " + where_ + " closed the connection while " +
                                     when + (e ? std::string(" (") + std::strerror(e) + ")" : ""));
  }

  std::mutex mu_;
  int fd_ = -1;
  std::string where_;
  double timeout_s_;
};

}  // namespace

std::unique_ptr<Store> make_tcp_store_client(const std::string& host, int port,
                                             const std::string& secret, double timeout_s) {
  return std::make_unique<TcpStoreClient>(host, port, secret, timeout_s);
}

}  // namespace interlace::bootstrap
