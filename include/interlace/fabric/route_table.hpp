// Contract: routing tables of a routed job, as `interlace routes gen` writes them
// (DIR/routes.txt; format in docs/routing.md). Read at run time by the route layer
// and by fabrics that route by themselves (sim); nothing is rebuilt for a new topology.
//  - next(cur, dst): the neighbour `cur` forwards a frame for `dst` to. Destination-based,
//    so every frame of a pair takes one path and per-pair order holds.
//  - vc(src, dst): the virtual channel frames of the pair travel on, kept on every hop.
//  - load/parse check structure (ranks, links, ports used once, a next entry naming a
//    neighbour for every pair, no forwarding loop) and throw Error(invalid_argument)
//    naming file, line and value. A channel-dependency cycle is not a load error (such a
//    table must still run, to show the watchdog); dependency_cycle() finds one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace interlace::fabric {

inline constexpr int kMaxRouteVcs = 8;

struct RouteLink {
  int a = 0, port_a = 0, b = 0, port_b = 0;
};

// One directed link on one virtual channel: the unit that deadlock freedom is about.
struct RouteChannel {
  int from = 0, to = 0, vc = 0;
  bool operator==(const RouteChannel&) const = default;
};

class RouteTable {
 public:
  int ranks() const noexcept { return ranks_; }
  int vcs() const noexcept { return vcs_; }
  const std::string& scheme() const noexcept { return scheme_; }
  const std::string& source() const noexcept { return source_; }  // file it came from
  const std::vector<RouteLink>& links() const noexcept { return links_; }

  int next(int cur, int dst) const { return next_[idx(cur, dst)]; }
  int vc(int src, int dst) const { return vc_[idx(src, dst)]; }
  bool linked(int a, int b) const { return port_to_[idx(a, b)] >= 0; }
  int port(int a, int b) const { return port_to_[idx(a, b)]; }  // a's port towards b, -1 if none
  std::vector<int> neighbours(int r) const;
  std::vector<int> path(int src, int dst) const;  // src first, dst last
  int hops(int src, int dst) const { return static_cast<int>(path(src, dst).size()) - 1; }

  // A cycle in the channel dependency graph (frame of pair (s,d) holding (u->v, c) waits
  // for (v->next(v,d), c)), in dependency order; empty when the tables are deadlock-free.
  std::vector<RouteChannel> dependency_cycle() const;
  // The cycle that passes through channel `c`, empty if none does.
  std::vector<RouteChannel> cycle_through(const RouteChannel& c) const;
  static std::string describe(const std::vector<RouteChannel>& cycle);  // "0->1 vc0, 1->2 vc0"

  // Every pair directly linked (a full mesh, port = peer index): the default topology of
  // fabrics that route by themselves when no tables are given.
  static RouteTable fully_connected(int ranks);

  friend RouteTable parse_route_table(const std::string& text, const std::string& name);

 private:
  size_t idx(int a, int b) const { return static_cast<size_t>(a) * ranks_ + b; }
  void finish(const std::string& name);  // checks completeness and loops
  std::vector<std::vector<int>> dependency_graph() const;  // over channel ids
  int ranks_ = 0, vcs_ = 1;
  std::string scheme_, source_;
  std::vector<RouteLink> links_;
  std::vector<int> next_, port_to_;
  std::vector<uint8_t> vc_;
};

// `text` in routes.txt format; `name` labels errors (a file name).
RouteTable parse_route_table(const std::string& text, const std::string& name);
// DIR/routes.txt (or the file itself when `path` is a file).
RouteTable load_route_table(const std::string& path);

}  // namespace interlace::fabric
