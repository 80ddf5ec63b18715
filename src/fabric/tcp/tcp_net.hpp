// Socket helpers for the tcp fabric: choosing the listen address, opening the
// listener, connecting with a deadline and naming endpoints in log messages.
// Internal header (src/), not part of the public contract.
#pragma once
#include <string>

#include "interlace/core/clock.hpp"

struct sockaddr;

namespace interlace::fabric::tcp {

// The address this rank listens on and publishes. `configured` is
// Config::tcp_interface: an interface name (eth0), an address or a host name.
// Empty: INTERLACE_HOST, else gethostname(), resolved to its first IPv4
// address; 127.0.0.1 when that does not resolve.
std::string choose_listen_host(const std::string& configured);

struct Listener {
  int fd = -1;
  std::string endpoint;  // numeric "host:port" ("[v6]:port" for IPv6) to publish
};
// Binds an ephemeral port on `host` (numeric or resolvable) and listens,
// non-blocking. Throws Error(system) naming the host on failure.
Listener open_listener(const std::string& host);

// Connects to a published endpoint within the deadline. Returns a connected,
// non-blocking fd with TCP_NODELAY, or -1 with *why describing the failure.
int connect_endpoint(const std::string& endpoint, Deadline deadline, std::string* why);

void set_nonblocking(int fd);
void set_nodelay(int fd);
std::string format_sockaddr(const sockaddr* sa);
std::string remote_name(int fd);  // "host:port" of the other end, "?" if unknown

}  // namespace interlace::fabric::tcp
