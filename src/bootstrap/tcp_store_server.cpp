// The TCP store server: one background thread multiplexes every client with
// poll(). Clients are untrusted until their hello carries the job secret; any
// malformed input closes only that client's connection.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <list>
#include <map>
#include <thread>

#include "bootstrap/store_util.hpp"
#include "bootstrap/tcp_store_proto.hpp"
#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/log.hpp"

namespace interlace::bootstrap {
using namespace tcpstore;

namespace {

struct Client {
  int fd = -1;
  std::string peer;  // "addr:port", for log messages
  std::string in, out;
  bool authed = false;
  bool dead = false;
  bool close_after_flush = false;
  bool waiting = false;  // a GET is parked until its key is set or it times out
  std::string wait_key;
  uint64_t wait_until_ns = 0;  // 0 = no limit
};

std::string peer_name(const sockaddr_storage& ss) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (ss.ss_family == AF_INET) {
    auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    port = ntohs(a->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

// Compares without an early exit so response timing does not reveal how many
// leading bytes of a guessed secret were right.
bool secret_equal(const std::string& got, const std::string& want) {
  size_t diff = got.size() ^ want.size();
  for (size_t i = 0; i < got.size(); ++i)
    diff |= static_cast<unsigned char>(got[i] ^ (i < want.size() ? want[i] : 0));
  return diff == 0;
}

}  // namespace

struct TcpStoreServer::Impl {
  std::string secret;
  int listen_fd = -1;
  int wake[2] = {-1, -1};
  int port = 0;
  std::list<Client> clients;
  std::map<std::string, std::string> data;
  std::thread thread;

  void serve();
  void accept_all();
  void read_from(Client& c);
  void flush(Client& c);
  void send(Client& c, const std::string& body);
  void process(Client& c);
  bool handle(Client& c, const std::string& body);
  void reject(Client& c, const std::string& why);
  void drop(Client& c, const std::string& why);
  void wake_waiters(const std::string& key);
  void expire_waiters();
};

TcpStoreServer::TcpStoreServer(const std::string& bind_host, int port, const std::string& secret)
    : impl_(std::make_unique<Impl>()) {
  impl_->secret = secret;
  if (port < 0 || port > 65535)
    throw_error(Errc::invalid_argument, "tcp store server: port " + std::to_string(port) +
                                            " is not in 0..65535");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const char* node = (bind_host.empty() || bind_host == "*") ? nullptr : bind_host.c_str();
  std::string service = std::to_string(port);
  int rc = getaddrinfo(node, service.c_str(), &hints, &res);
  if (rc != 0)
    throw_error(Errc::invalid_argument, "tcp store server: cannot resolve bind host '" +
                                            bind_host + "': " + gai_strerror(rc));
  int fd = -1;
  int last_errno = 0;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) { last_errno = errno; continue; }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 512) == 0) break;
    last_errno = errno;
    ::close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) {
    errno = last_errno;
    throw_system_error("tcp store server: cannot listen on '" + bind_host + "' port " + service);
  }
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  impl_->port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                               : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  impl_->listen_fd = fd;
  if (::pipe2(impl_->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(fd);
    throw_system_error("tcp store server: pipe");
  }
  impl_->thread = std::thread([impl = impl_.get()] { impl->serve(); });
}

TcpStoreServer::~TcpStoreServer() {
  char b = 1;
  (void)!::write(impl_->wake[1], &b, 1);
  if (impl_->thread.joinable()) impl_->thread.join();
  for (Client& c : impl_->clients) ::close(c.fd);
  ::close(impl_->listen_fd);
  ::close(impl_->wake[0]);
  ::close(impl_->wake[1]);
}

int TcpStoreServer::port() const { return impl_->port; }

void TcpStoreServer::Impl::serve() {
  std::vector<pollfd> fds;
  std::vector<Client*> owners;
  for (;;) {
    fds.clear();
    owners.clear();
    fds.push_back({wake[0], POLLIN, 0});
    fds.push_back({listen_fd, POLLIN, 0});
    uint64_t next_deadline = 0;
    for (Client& c : clients) {
      short ev = 0;
      if (!c.waiting && !c.close_after_flush) ev |= POLLIN;
      if (!c.out.empty()) ev |= POLLOUT;
      fds.push_back({c.fd, ev, 0});
      owners.push_back(&c);
      if (c.waiting && c.wait_until_ns && (!next_deadline || c.wait_until_ns < next_deadline))
        next_deadline = c.wait_until_ns;
    }
    int timeout_ms = -1;
    if (next_deadline) {
      uint64_t now = now_ns();
      timeout_ms = next_deadline <= now ? 0 : static_cast<int>((next_deadline - now) / 1000000 + 1);
    }
    int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno != EINTR) {
      IL_LOG(error, "tcp store server: poll failed (errno " << errno << "); stopping");
      return;
    }
    if (n > 0) {
      if (fds[0].revents) return;  // the destructor asked us to stop
      if (fds[1].revents & POLLIN) accept_all();
      for (size_t i = 0; i < owners.size(); ++i) {
        Client& c = *owners[i];
        short re = fds[i + 2].revents;
        if (c.dead || !re) continue;
        if (re & POLLOUT) flush(c);
        if (!c.dead && (re & (POLLIN | POLLHUP | POLLERR))) read_from(c);
      }
    }
    expire_waiters();
    // A client whose GET was just answered may already have more requests buffered.
    for (Client& c : clients)
      if (!c.dead) process(c);
    for (auto it = clients.begin(); it != clients.end();) {
      if (it->dead || (it->close_after_flush && it->out.empty())) {
        ::close(it->fd);
        it = clients.erase(it);
      } else {
        ++it;
      }
    }
  }
}

void TcpStoreServer::Impl::accept_all() {
  for (;;) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len,
                       SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        IL_LOG(warn, "tcp store server: accept failed (errno " << errno << ")");
      return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Client c;
    c.fd = fd;
    c.peer = peer_name(ss);
    clients.push_back(std::move(c));
  }
}

void TcpStoreServer::Impl::read_from(Client& c) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.in.append(buf, static_cast<size_t>(n));
      // Check lengths as bytes arrive, so an oversized claim never gets buffered.
      process(c);
      if (c.dead || c.waiting || c.close_after_flush) return;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    c.dead = true;  // orderly close or reset: normal when a rank finishes setup
    return;
  }
}

void TcpStoreServer::Impl::flush(Client& c) {
  while (!c.out.empty()) {
    ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      c.out.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    c.dead = true;
    return;
  }
}

void TcpStoreServer::Impl::send(Client& c, const std::string& body) {
  c.out += frame(body);
  flush(c);
}

void TcpStoreServer::Impl::drop(Client& c, const std::string& why) {
  IL_LOG(error, "tcp store server: closing connection from " << c.peer << ": " << why);
  c.dead = true;
}

void TcpStoreServer::Impl::reject(Client& c, const std::string& why) {
  IL_LOG(error, "tcp store server: rejecting " << c.peer << ": " << why);
  std::string body;
  put_u8(body, kRejected);
  body += why;
  send(c, body);
  c.in.clear();
  c.close_after_flush = true;
}

void TcpStoreServer::Impl::process(Client& c) {
  while (!c.dead && !c.waiting && !c.close_after_flush && c.in.size() >= 4) {
    size_t len = read_be32(c.in.data());
    size_t limit = c.authed ? kMaxBody : kMaxHelloBody;
    if (len == 0 || len > limit)
      return drop(c, "message length " + std::to_string(len) + " is outside 1.." +
                         std::to_string(limit) + (c.authed ? "" : " (before hello)"));
    if (c.in.size() < 4 + len) return;
    std::string body = c.in.substr(4, len);
    c.in.erase(0, 4 + len);
    if (!handle(c, body)) return;
  }
}

bool TcpStoreServer::Impl::handle(Client& c, const std::string& body) {
  Reader r(body.data(), body.size());
  uint8_t op = r.u8();
  if (!c.authed) {
    if (op != kHello) return drop(c, "first message has op " + std::to_string(op) + ", not hello"), false;
    uint32_t magic = r.u32();
    uint16_t version = r.u16();
    uint16_t slen = r.u16();
    std::string secret = r.bytes(slen);
    if (!r.done()) return drop(c, "malformed hello (" + std::to_string(body.size()) + " bytes)"), false;
    if (magic != kMagic) return drop(c, "bad magic in hello: " + std::to_string(magic)), false;
    if (version != kVersion)
      return reject(c, "protocol version " + std::to_string(version) + " unsupported; server speaks " +
                           std::to_string(kVersion)), false;
    if (!secret_equal(secret, this->secret)) return reject(c, "wrong job secret"), false;
    c.authed = true;
    std::string ok;
    put_u8(ok, kOk);
    send(c, ok);
    return true;
  }
  std::string reply;
  switch (op) {
    case kSet: {
      uint16_t klen = r.u16();
      std::string key = r.bytes(klen);
      std::string value = r.rest();
      if (!r.done()) break;
      data[key] = std::move(value);
      put_u8(reply, kOk);
      send(c, reply);
      wake_waiters(key);
      return true;
    }
    case kGet: {
      uint32_t timeout_ms = r.u32();
      uint16_t klen = r.u16();
      std::string key = r.bytes(klen);
      if (!r.done()) break;
      auto it = data.find(key);
      if (it != data.end()) {
        put_u8(reply, kOk);
        send(c, reply + it->second);
        return true;
      }
      c.waiting = true;
      c.wait_key = key;
      c.wait_until_ns = timeout_ms ? now_ns() + uint64_t(timeout_ms) * 1000000 : 0;
      return true;
    }
    case kCheck: {
      uint16_t klen = r.u16();
      std::string key = r.bytes(klen);
      if (!r.done()) break;
      put_u8(reply, kOk);
      put_u8(reply, data.count(key) ? 1 : 0);
      send(c, reply);
      return true;
    }
    case kAdd: {
      auto delta = static_cast<long long>(r.u64());
      uint16_t klen = r.u16();
      std::string key = r.bytes(klen);
      if (!r.done()) break;
      long long v;
      try {
        auto it = data.find(key);
        v = (it == data.end() ? 0 : detail::parse_counter(key, it->second)) + delta;
      } catch (const Error& e) {
        put_u8(reply, kFailed);
        send(c, reply + e.what());
        return true;
      }
      data[key] = std::to_string(v);
      put_u8(reply, kOk);
      put_u64(reply, static_cast<uint64_t>(v));
      send(c, reply);
      wake_waiters(key);
      return true;
    }
    default:
      return drop(c, "unknown op " + std::to_string(op)), false;
  }
  return drop(c, "malformed message for op " + std::to_string(op) + " (" +
                     std::to_string(body.size()) + " bytes)"), false;
}

void TcpStoreServer::Impl::wake_waiters(const std::string& key) {
  auto it = data.find(key);
  for (Client& w : clients) {
    if (w.dead || !w.waiting || w.wait_key != key) continue;
    w.waiting = false;
    std::string reply;
    put_u8(reply, kOk);
    send(w, reply + it->second);
  }
}

void TcpStoreServer::Impl::expire_waiters() {
  uint64_t now = now_ns();
  for (Client& w : clients) {
    if (w.dead || !w.waiting || !w.wait_until_ns || w.wait_until_ns > now) continue;
    w.waiting = false;
    std::string reply;
    put_u8(reply, kTimedOut);
    send(w, reply);
  }
}

}  // namespace interlace::bootstrap
