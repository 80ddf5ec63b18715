#include "fabric/tcp/tcp_net.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::tcp {
namespace {

// The IPv4 address of a named interface, or "" if there is no such interface.
std::string interface_address(const std::string& name) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return {};
  std::string found;
  for (ifaddrs* it = list; it; it = it->ifa_next) {
    if (!it->ifa_addr || name != it->ifa_name) continue;
    if (it->ifa_addr->sa_family == AF_INET) {
      char buf[INET_ADDRSTRLEN];
      auto* in = reinterpret_cast<sockaddr_in*>(it->ifa_addr);
      inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
      found = buf;
      break;
    }
  }
  freeifaddrs(list);
  return found;
}

std::string resolve_ipv4(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &res) != 0 || !res) return {};
  std::string out = format_sockaddr(res->ai_addr);
  freeaddrinfo(res);
  return out.substr(0, out.rfind(':'));
}

// Splits "host:port" / "[v6]:port"; false if it is not of that shape.
bool split_endpoint(const std::string& ep, std::string* host, std::string* port) {
  size_t colon = ep.rfind(':');
  if (colon == std::string::npos || colon + 1 >= ep.size()) return false;
  *host = ep.substr(0, colon);
  *port = ep.substr(colon + 1);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']')
    *host = host->substr(1, host->size() - 2);
  return !host->empty();
}

}  // namespace

// The local address this host uses to reach `host` (no packet is sent: connecting a
// UDP socket only selects the route). Empty if there is no route.
std::string route_source_address(const std::string& host) {
  std::string ip = resolve_ipv4(host);
  if (ip.empty()) return {};
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return {};
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);
  inet_pton(AF_INET, ip.c_str(), &to.sin_addr);
  std::string out;
  sockaddr_in me{};
  socklen_t len = sizeof me;
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&me), &len) == 0) {
    char buf[INET_ADDRSTRLEN] = {};
    if (inet_ntop(AF_INET, &me.sin_addr, buf, sizeof buf)) out = buf;
  }
  close(fd);
  return out;
}

std::string choose_listen_host(const std::string& configured) {
  if (!configured.empty()) {
    std::string via_interface = interface_address(configured);
    return via_interface.empty() ? configured : via_interface;
  }
  // With a TCP store (several hosts), listen where the route to the store leaves this
  // host: that address is reachable from the store's network even when the host name
  // is not resolvable (network namespaces, containers).
  if (const char* store = std::getenv("INTERLACE_STORE"); store && std::strncmp(store, "tcp://", 6) == 0) {
    std::string hostport = store + 6;
    const size_t colon = hostport.rfind(':');
    std::string addr = route_source_address(hostport.substr(0, colon));
    if (!addr.empty() && addr != "127.0.0.1") return addr;
  }
  std::string name;
  if (const char* env = std::getenv("INTERLACE_HOST"); env && *env) {
    name = env;
  } else {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) == 0) name = buf;
  }
  std::string addr = name.empty() ? std::string() : resolve_ipv4(name);
  if (addr.empty()) {
    IL_LOG(info, "tcp: host name '" << name << "' does not resolve to IPv4; listening on 127.0.0.1");
    return "127.0.0.1";
  }
  return addr;
}

void set_nonblocking(int fd) {
  int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
    throw_system_error("tcp: fcntl(O_NONBLOCK) on fd " + std::to_string(fd));
}

void set_nodelay(int fd) {
  int one = 1;
  // Frames are latency-bound; we batch ourselves (header+payload in one writev).
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::string format_sockaddr(const sockaddr* sa) {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (sa->sa_family == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
    return std::string(buf) + ":" + std::to_string(ntohs(in->sin_port));
  }
  if (sa->sa_family == AF_INET6) {
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof buf);
    return "[" + std::string(buf) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  return "?";
}

std::string remote_name(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "?";
  return format_sockaddr(reinterpret_cast<sockaddr*>(&ss));
}

Listener open_listener(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.c_str(), "0", &hints, &res); rc != 0)
    throw_error(Errc::system, "tcp: cannot resolve listen address '" + host +
                                  "' (INTERLACE_TCP_ADDR): " + gai_strerror(rc));
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    freeaddrinfo(res);
    throw_system_error("tcp: socket() for listen address " + host);
  }
  if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
    int err = errno;
    freeaddrinfo(res);
    close(fd);
    errno = err;
    throw_system_error("tcp: cannot listen on '" + host + "' (INTERLACE_TCP_ADDR)");
  }
  freeaddrinfo(res);
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  return Listener{fd, format_sockaddr(reinterpret_cast<sockaddr*>(&ss))};
}

int connect_endpoint(const std::string& endpoint, Deadline deadline, std::string* why) {
  std::string host, port;
  if (!split_endpoint(endpoint, &host, &port)) {
    *why = "malformed address '" + endpoint + "'";
    return -1;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    *why = "cannot resolve '" + endpoint + "': " + gai_strerror(rc);
    return -1;
  }
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) err = errno;
  freeaddrinfo(res);
  // Non-blocking connect so the wait honours the deadline instead of the
  // kernel's SYN retry schedule (minutes).
  while (err == EINPROGRESS || err == EINTR) {
    pollfd p{fd, POLLOUT, 0};
    int ms = -1;
    if (deadline.at_ns) {
      uint64_t now = now_ns();
      ms = now >= deadline.at_ns ? 0 : static_cast<int>((deadline.at_ns - now) / 1000000 + 1);
    }
    int rc = poll(&p, 1, ms);
    if (rc == 0) { err = ETIMEDOUT; break; }
    if (rc < 0) { err = errno; continue; }
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  }
  if (err != 0) {
    *why = "connect to " + endpoint + " failed: " + std::strerror(err);
    if (fd >= 0) close(fd);
    return -1;
  }
  set_nodelay(fd);
  return fd;
}

}  // namespace interlace::fabric::tcp
