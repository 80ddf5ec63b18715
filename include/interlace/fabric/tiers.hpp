// Contract: two tiers in one job (docs/fabrics.md "Two tiers"). Ranks that share a
// host talk over a host-scope fabric (shm), the others over a network one (tcp),
// chosen per peer at start-up from each rank's host name (Environment::host,
// exchanged through the store).
//  - INTERLACE_FABRIC=auto: the best host fabric and the best network fabric of the
//    registry; HOST+NET (e.g. shm+tcp) names both; a single name is one fabric for
//    every peer, as before.
//  - The combined fabric works on world ranks throughout: its host fabric is built
//    for the whole job but only ever addressed with ranks on this host (shm names its
//    segments by rank and connects lazily, so remote ranks cost nothing), its network
//    fabric only with the others (tcp connects lazily too). Frame headers, regions
//    and lost-peer reports therefore need no rank translation.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "interlace/fabric/fabric.hpp"
#include "interlace/fabric/registry.hpp"

namespace interlace::fabric {

// What an INTERLACE_FABRIC value asks for: one fabric (`single`) or two tiers.
struct FabricSetting {
  std::string single;                 // set when one fabric serves every peer
  const FabricInfo* host = nullptr;   // both set: two tiers
  const FabricInfo* net = nullptr;
  bool tiers() const noexcept { return host && net; }
};

// auto, NAME or HOST+NET, checked against `reg`. Throws invalid_argument naming the
// value (unknown name, a HOST that is not host-scope, a NET that is not network-scope).
FabricSetting parse_fabric_setting(const std::string& value, const Registry& reg);

// Every rank's host name, in rank order: each rank stores its own, rank 0 gathers
// them and stores the list, the others read that one key (2n store operations in
// all rather than n^2). `prefix` namespaces the keys. Throws timeout after timeout_s.
std::vector<std::string> exchange_hosts(bootstrap::Store& store, const std::string& prefix, int rank,
                                        int size, const std::string& host, double timeout_s);

// Combines `host` (used for peers with local[peer] != 0, this rank included) and
// `net` (all others). Both were built for the same rank and size.
std::unique_ptr<Fabric> make_tier_fabric(std::unique_ptr<Fabric> host, std::unique_ptr<Fabric> net,
                                         std::vector<uint8_t> local);

// "shm to ranks 0-1, tcp to ranks 2-3" (this rank excluded), from fabric_of().
std::string describe_peers(const Fabric& f);

}  // namespace interlace::fabric
