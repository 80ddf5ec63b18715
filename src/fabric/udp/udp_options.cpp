#include "fabric/udp/udp_options.hpp"

#include <cstdlib>
#include <sstream>

#include "interlace/core/error.hpp"

namespace interlace::fabric::udp {
namespace {

[[noreturn]] void bad(const std::string& var, const std::string& value, const std::string& why) {
  throw_error(Errc::invalid_argument, var + "='" + value + "': " + why);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep)) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

// Whole-string number or nothing ("3x" and "" are errors, not 3 and 0).
bool to_double(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

bool to_long(const std::string& s, long long* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtoll(s.c_str(), &end, 10);
  return end && *end == '\0';
}

long long int_in(const char* var, const std::string& v, long long lo, long long hi) {
  long long x = 0;
  if (!to_long(v, &x) || x < lo || x > hi)
    bad(var, v, "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  return x;
}

}  // namespace

FaultSpec parse_faults(const std::string& text) {
  static const char* kVar = "INTERLACE_UDP_FAULTS";
  FaultSpec f;
  if (text.empty()) return f;
  for (const std::string& item : split(text, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos)
      bad(kVar, text, "item '" + item + "' is not key=value (keys: drop, dup, reorder, ack_drop, "
                      "delay_ms, down, seed)");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    double x = 0;
    auto probability = [&](double* slot) {
      if (!to_double(value, &x) || x < 0 || x > 1)
        bad(kVar, text, "key '" + key + "' needs a probability in [0, 1], got '" + value + "'");
      *slot = x;
    };
    if (key == "drop") probability(&f.drop);
    else if (key == "dup") probability(&f.dup);
    else if (key == "reorder") probability(&f.reorder);
    else if (key == "ack_drop") probability(&f.ack_drop);
    else if (key == "delay_ms") {
      if (!to_double(value, &x) || x < 0 || x > 10000)
        bad(kVar, text, "key 'delay_ms' needs milliseconds in [0, 10000], got '" + value + "'");
      f.delay_ms = x;
    } else if (key == "down") {
      const size_t colon = value.find(':');
      double start = 0, len = 0;
      if (colon == std::string::npos || !to_double(value.substr(0, colon), &start) ||
          !to_double(value.substr(colon + 1), &len) || start < 0 || len <= 0)
        bad(kVar, text, "key 'down' needs START_S:DURATION_S (seconds, duration > 0), got '" +
                            value + "'");
      f.down_start_s = start;
      f.down_len_s = len;
    } else if (key == "seed") {
      long long s = 0;
      if (!to_long(value, &s) || s < 0)
        bad(kVar, text, "key 'seed' needs a non-negative integer, got '" + value + "'");
      f.seed = static_cast<uint64_t>(s);
    } else {
      bad(kVar, text, "unknown key '" + key + "' (keys: drop, dup, reorder, ack_drop, delay_ms, "
                      "down, seed)");
    }
  }
  return f;
}

std::vector<StaticPeer> parse_peers(const std::string& text, uint16_t base_port) {
  static const char* kVar = "INTERLACE_UDP_PEERS";
  std::vector<StaticPeer> out;
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) bad(kVar, text, "empty entry (expected host[:port] per rank)");
    StaticPeer p;
    const size_t colon = item.rfind(':');
    if (colon != std::string::npos && item.find(']') == std::string::npos && item.find(':') == colon) {
      p.host = item.substr(0, colon);
      long long port = 0;
      if (!to_long(item.substr(colon + 1), &port) || port < 1 || port > 65535)
        bad(kVar, text, "entry '" + item + "' has a bad port (1..65535)");
      p.port = static_cast<uint16_t>(port);
    } else {
      p.host = item;
      int earlier = 0;
      for (const StaticPeer& q : out)
        if (q.host == p.host) ++earlier;
      if (base_port + earlier > 65535) bad(kVar, text, "port for '" + item + "' exceeds 65535");
      p.port = static_cast<uint16_t>(base_port + earlier);
    }
    if (p.host.empty()) bad(kVar, text, "entry '" + item + "' has no host");
    out.push_back(p);
  }
  return out;
}

Options options_from_env(int size) {
  Options o;
  o.addr = env("INTERLACE_UDP_ADDR");
  if (std::string v = env("INTERLACE_UDP_PORT"); !v.empty())
    o.port = static_cast<int>(int_in("INTERLACE_UDP_PORT", v, 0, 65535));
  if (std::string v = env("INTERLACE_UDP_PEERS"); !v.empty()) {
    o.peers = parse_peers(v, o.port > 0 ? static_cast<uint16_t>(o.port) : kStaticBasePort);
    if (static_cast<int>(o.peers.size()) != size)
      bad("INTERLACE_UDP_PEERS", v, "has " + std::to_string(o.peers.size()) +
                                        " entries but the job has " + std::to_string(size) + " ranks");
  }
  if (std::string v = env("INTERLACE_UDP_MTU"); !v.empty())
    o.mtu = static_cast<size_t>(int_in("INTERLACE_UDP_MTU", v, 576, 65535));
  if (std::string v = env("INTERLACE_UDP_WINDOW"); !v.empty())
    o.window = static_cast<int>(int_in("INTERLACE_UDP_WINDOW", v, 1, kMaxWindow));
  if (std::string v = env("INTERLACE_UDP_MODE"); !v.empty()) {
    if (v == "sr") o.mode = Mode::sr;
    else if (v == "gbn") o.mode = Mode::gbn;
    else bad("INTERLACE_UDP_MODE", v, "expected sr or gbn");
  }
  if (std::string v = env("INTERLACE_UDP_PIGGYBACK"); !v.empty()) {
    if (v == "1") o.piggyback = true;
    else if (v == "0") o.piggyback = false;
    else bad("INTERLACE_UDP_PIGGYBACK", v, "expected 0 or 1");
  }
  if (std::string v = env("INTERLACE_UDP_PEER_TIMEOUT"); !v.empty()) {
    double x = 0;
    if (!to_double(v, &x) || x < 0.1 || x > 86400)
      bad("INTERLACE_UDP_PEER_TIMEOUT", v, "expected seconds in [0.1, 86400]");
    o.peer_timeout_s = x;
  }
  o.faults = parse_faults(env("INTERLACE_UDP_FAULTS"));
  if (std::string v = env("INTERLACE_ZRLMPI_RANKS"); !v.empty()) {
    for (const std::string& item : split(v, ','))
      o.zrl_ranks.push_back(static_cast<int>(int_in("INTERLACE_ZRLMPI_RANKS", item, 0, size - 1)));
  }
  return o;
}

}  // namespace interlace::fabric::udp
