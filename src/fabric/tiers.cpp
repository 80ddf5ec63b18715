// INTERLACE_FABRIC's forms, the host-name exchange and the per-peer description
// behind two-tier jobs (interlace/fabric/tiers.hpp).
#include <string>

#include "interlace/bootstrap/store.hpp"
#include "interlace/core/error.hpp"
#include "interlace/fabric/tiers.hpp"

namespace interlace::fabric {

namespace {
const FabricInfo* named(const Registry& reg, const std::string& value, const std::string& name) {
  const FabricInfo* f = reg.find(name);
  if (!f)
    throw_error(Errc::invalid_argument, "INTERLACE_FABRIC='" + value + "': '" + name +
                                            "' is not a registered fabric (" + reg.names() + ")");
  return f;
}
}  // namespace

FabricSetting parse_fabric_setting(const std::string& value, const Registry& reg) {
  FabricSetting s;
  if (value == "auto") {
    s.host = reg.best(FabricScope::host);
    s.net = reg.best(FabricScope::network);
    if (!s.host && !s.net) throw_error(Errc::unsupported, "no fabric is registered");
    if (!s.tiers()) {
      s.single = (s.host ? s.host : s.net)->name;
      s.host = s.net = nullptr;
    }
    return s;
  }
  const size_t plus = value.find('+');
  if (plus == std::string::npos) {
    if (!reg.find(value))
      throw_error(Errc::invalid_argument, "INTERLACE_FABRIC='" + value +
                                              "' is not auto, HOST+NET or a registered fabric (" +
                                              reg.names() + ")");
    s.single = value;
    return s;
  }
  s.host = named(reg, value, value.substr(0, plus));
  s.net = named(reg, value, value.substr(plus + 1));
  if (s.host->scope != FabricScope::host)
    throw_error(Errc::invalid_argument, "INTERLACE_FABRIC='" + value + "': '" + s.host->name +
                                            "' is a network fabric; the first of HOST+NET must be a host "
                                            "fabric (ranks on one host)");
  if (s.net->scope != FabricScope::network)
    throw_error(Errc::invalid_argument, "INTERLACE_FABRIC='" + value + "': '" + s.net->name +
                                            "' is a host fabric; the second of HOST+NET must reach other hosts");
  return s;
}

std::vector<std::string> exchange_hosts(bootstrap::Store& store, const std::string& prefix, int rank,
                                        int size, const std::string& host, double timeout_s) {
  // Newline-separated below; a host name never holds one, INTERLACE_HOST might.
  if (host.find('\n') != std::string::npos)
    throw_error(Errc::invalid_argument, "host name '" + host + "' (INTERLACE_HOST) contains a newline");
  std::vector<std::string> hosts(static_cast<size_t>(size));
  if (rank != 0) {
    store.set(prefix + "host/" + std::to_string(rank), host);
    const std::string all = store.get(prefix + "hosts", timeout_s);
    size_t pos = 0;
    for (int r = 0; r < size; ++r) {
      const size_t nl = all.find('\n', pos);
      if (nl == std::string::npos && r + 1 < size)
        throw_error(Errc::protocol, "host list from rank 0 has fewer than " + std::to_string(size) + " entries");
      hosts[static_cast<size_t>(r)] = all.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl + 1;
    }
    return hosts;
  }
  std::string all = host;
  hosts[0] = host;
  for (int r = 1; r < size; ++r) {
    hosts[static_cast<size_t>(r)] = store.get(prefix + "host/" + std::to_string(r), timeout_s);
    all += "\n" + hosts[static_cast<size_t>(r)];
  }
  store.set(prefix + "hosts", all);
  return hosts;
}

std::string describe_peers(const Fabric& f) {
  // Runs of consecutive peers on one fabric: "shm to ranks 0-1, tcp to ranks 2-3".
  std::string out;
  std::string cur;
  int first = -1, last = -1;
  auto flush = [&] {
    if (first < 0) return;
    if (!out.empty()) out += ", ";
    out += cur + (first == last ? " to rank " + std::to_string(first)
                                : " to ranks " + std::to_string(first) + "-" + std::to_string(last));
  };
  for (int p = 0; p < f.size(); ++p) {
    if (p == f.rank()) continue;
    const std::string name = f.fabric_of(p);
    if (first >= 0 && name == cur && last + 1 == p - (p - 1 == f.rank() ? 1 : 0)) {
      last = p;
      continue;
    }
    flush();
    cur = name;
    first = last = p;
  }
  flush();
  return out.empty() ? "no peers" : out;
}

}  // namespace interlace::fabric
