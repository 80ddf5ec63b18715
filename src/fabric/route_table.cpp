#include "interlace/fabric/route_table.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <sys/stat.h>

#include "interlace/core/error.hpp"

namespace interlace::fabric {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw_error(Errc::invalid_argument, where + ": " + what);
}

int to_int(const std::string& tok, const std::string& where, const std::string& what) {
  size_t used = 0;
  long v = 0;
  try {
    v = std::stol(tok, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != tok.size() || v < 0 || v > 1 << 20)
    fail(where, what + " '" + tok + "' is not a non-negative integer");
  return static_cast<int>(v);
}

}  // namespace

std::vector<int> RouteTable::neighbours(int r) const {
  std::vector<int> out;
  for (int b = 0; b < ranks_; ++b)
    if (b != r && linked(r, b)) out.push_back(b);
  return out;
}

std::vector<int> RouteTable::path(int src, int dst) const {
  std::vector<int> p{src};
  while (p.back() != dst) {
    if (static_cast<int>(p.size()) > ranks_)
      throw_error(Errc::invalid_argument, "routes from " + std::to_string(src) + " to " +
                                              std::to_string(dst) + " loop");
    p.push_back(next(p.back(), dst));
  }
  return p;
}

RouteTable RouteTable::fully_connected(int ranks) {
  RouteTable t;
  t.ranks_ = ranks;
  t.scheme_ = "direct";
  t.source_ = "(every pair linked)";
  const size_t n = static_cast<size_t>(ranks) * ranks;
  t.next_.assign(n, -1);
  t.port_to_.assign(n, -1);
  t.vc_.assign(n, 0);
  for (int a = 0; a < ranks; ++a)
    for (int b = 0; b < ranks; ++b) {
      if (a == b) continue;
      t.next_[t.idx(a, b)] = b;
      t.port_to_[t.idx(a, b)] = b;
      if (a < b) t.links_.push_back({a, b, b, a});
    }
  return t;
}

RouteTable parse_route_table(const std::string& text, const std::string& name) {
  RouteTable t;
  t.source_ = name;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  bool header = false, have_ranks = false;
  std::vector<int> vc_set;
  auto need_ranks = [&](const std::string& where) {
    if (!have_ranks) fail(where, "'ranks N' must come before links and routes");
  };
  auto rank_arg = [&](const std::string& tok, const std::string& where, const char* what) {
    int r = to_int(tok, where, what);
    if (r >= t.ranks_)
      fail(where, std::string(what) + " " + tok + " is outside the " + std::to_string(t.ranks_) + " ranks");
    return r;
  };
  while (std::getline(in, line)) {
    ++lineno;
    const std::string where = name + ":" + std::to_string(lineno);
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream ls(line);
    std::vector<std::string> tok;
    for (std::string w; ls >> w;) tok.push_back(w);
    if (tok.empty()) continue;
    const std::string& key = tok[0];
    auto args = [&](size_t n) {
      if (tok.size() != n + 1)
        fail(where, "'" + key + "' takes " + std::to_string(n) + " values, got " + std::to_string(tok.size() - 1));
    };
    if (!header) {
      if (key != "interlace-routes" || tok.size() != 2 || tok[1] != "1")
        fail(where, "expected the header 'interlace-routes 1', got '" + line + "'");
      header = true;
    } else if (key == "ranks") {
      args(1);
      if (have_ranks) fail(where, "'ranks' given twice");
      t.ranks_ = to_int(tok[1], where, "ranks");
      if (t.ranks_ < 1) fail(where, "ranks must be at least 1");
      have_ranks = true;
      const size_t n = static_cast<size_t>(t.ranks_) * t.ranks_;
      t.next_.assign(n, -1);
      t.port_to_.assign(n, -1);
      t.vc_.assign(n, 0);
      vc_set.assign(n, 0);
    } else if (key == "vcs") {
      args(1);
      t.vcs_ = to_int(tok[1], where, "vcs");
      if (t.vcs_ < 1 || t.vcs_ > kMaxRouteVcs)
        fail(where, "vcs " + tok[1] + " is outside 1.." + std::to_string(kMaxRouteVcs));
    } else if (key == "scheme") {
      args(1);
      t.scheme_ = tok[1];
    } else if (key == "link") {
      args(4);
      need_ranks(where);
      RouteLink l{rank_arg(tok[1], where, "rank"), to_int(tok[2], where, "port"),
                  rank_arg(tok[3], where, "rank"), to_int(tok[4], where, "port")};
      if (l.a == l.b) fail(where, "link from rank " + tok[1] + " to itself");
      if (t.linked(l.a, l.b))
        fail(where, "ranks " + tok[1] + " and " + tok[3] + " are linked twice");
      for (const RouteLink& o : t.links_) {
        auto used = [&](int r, int p) {
          return (o.a == r && o.port_a == p) || (o.b == r && o.port_b == p);
        };
        if (used(l.a, l.port_a)) fail(where, "port " + tok[2] + " of rank " + tok[1] + " is used twice");
        if (used(l.b, l.port_b)) fail(where, "port " + tok[4] + " of rank " + tok[3] + " is used twice");
      }
      t.links_.push_back(l);
      t.port_to_[t.idx(l.a, l.b)] = l.port_a;
      t.port_to_[t.idx(l.b, l.a)] = l.port_b;
    } else if (key == "next") {
      args(3);
      need_ranks(where);
      int cur = rank_arg(tok[1], where, "rank"), dst = rank_arg(tok[2], where, "destination");
      int nxt = rank_arg(tok[3], where, "next hop");
      if (cur == dst) fail(where, "a route from rank " + tok[1] + " to itself");
      if (!t.linked(cur, nxt))
        fail(where, "next hop " + tok[3] + " is not a neighbour of rank " + tok[1] +
                        " (no link between them; links come before routes)");
      if (t.next_[t.idx(cur, dst)] >= 0) fail(where, "route " + tok[1] + " -> " + tok[2] + " given twice");
      t.next_[t.idx(cur, dst)] = nxt;
    } else if (key == "vc") {
      args(3);
      need_ranks(where);
      int src = rank_arg(tok[1], where, "rank"), dst = rank_arg(tok[2], where, "destination");
      int v = to_int(tok[3], where, "vc");
      if (v >= t.vcs_) fail(where, "vc " + tok[3] + " is not below vcs " + std::to_string(t.vcs_));
      if (src == dst) fail(where, "a vc for rank " + tok[1] + " to itself");
      if (vc_set[t.idx(src, dst)]) fail(where, "vc of " + tok[1] + " -> " + tok[2] + " given twice");
      vc_set[t.idx(src, dst)] = 1;
      t.vc_[t.idx(src, dst)] = static_cast<uint8_t>(v);
    } else {
      fail(where, "unknown entry '" + key + "' (expected ranks, vcs, scheme, link, next or vc)");
    }
  }
  if (!header) fail(name, "empty: expected the header 'interlace-routes 1'");
  if (!have_ranks) fail(name, "no 'ranks N' line");
  for (int s = 0; s < t.ranks_; ++s)
    for (int d = 0; d < t.ranks_; ++d)
      if (s != d && !vc_set[t.idx(s, d)])
        fail(name, "no vc for the pair " + std::to_string(s) + " -> " + std::to_string(d));
  t.finish(name);
  return t;
}

void RouteTable::finish(const std::string& name) {
  for (int s = 0; s < ranks_; ++s)
    for (int d = 0; d < ranks_; ++d) {
      if (s == d) continue;
      if (next(s, d) < 0)
        fail(name, "no route from rank " + std::to_string(s) + " to " + std::to_string(d));
    }
  for (int s = 0; s < ranks_; ++s)
    for (int d = 0; d < ranks_; ++d) {
      if (s == d) continue;
      std::vector<int> p{s};
      while (p.back() != d) {
        p.push_back(next(p.back(), d));
        if (static_cast<int>(p.size()) > ranks_) {
          std::string route;
          for (int r : p) route += (route.empty() ? "" : " -> ") + std::to_string(r);
          fail(name, "routes from " + std::to_string(s) + " to " + std::to_string(d) + " loop: " + route);
        }
      }
    }
}

std::vector<std::vector<int>> RouteTable::dependency_graph() const {
  // Channel id = (from * ranks + to) * vcs + vc; only linked pairs are used.
  const size_t n = static_cast<size_t>(ranks_) * ranks_ * vcs_;
  std::vector<std::vector<int>> g(n);
  for (int s = 0; s < ranks_; ++s)
    for (int d = 0; d < ranks_; ++d) {
      if (s == d) continue;
      const int c = vc(s, d);
      std::vector<int> p = path(s, d);
      for (size_t i = 0; i + 2 < p.size(); ++i) {
        int from = static_cast<int>((idx(p[i], p[i + 1])) * vcs_ + c);
        int to = static_cast<int>((idx(p[i + 1], p[i + 2])) * vcs_ + c);
        auto& e = g[from];
        if (std::find(e.begin(), e.end(), to) == e.end()) e.push_back(to);
      }
    }
  return g;
}

namespace {

// Iterative DFS. start >= 0: a cycle through `start` only (a finished node cannot reach
// start, else the edge back to start would have been seen while start was on the stack).
// start < 0: the first cycle anywhere.
std::vector<int> find_cycle_ids(const std::vector<std::vector<int>>& g, int start) {
  const int n = static_cast<int>(g.size());
  std::vector<uint8_t> color(n, 0);  // 0 new, 1 on the stack, 2 finished
  std::vector<int> parent(n, -1);
  auto run = [&](int root) -> std::vector<int> {
    std::vector<std::pair<int, size_t>> stack{{root, 0}};
    color[root] = 1;
    while (!stack.empty()) {
      auto& [u, i] = stack.back();
      if (i == g[u].size()) {
        color[u] = 2;
        stack.pop_back();
        continue;
      }
      const int v = g[u][i++];
      if (color[v] == 1 && (start < 0 || v == start)) {
        std::vector<int> cyc;
        for (int w = u; w != v; w = parent[w]) cyc.push_back(w);
        cyc.push_back(v);
        std::reverse(cyc.begin(), cyc.end());
        return cyc;
      }
      if (color[v] == 0) {
        color[v] = 1;
        parent[v] = u;
        stack.push_back({v, 0});
      }
    }
    return {};
  };
  if (start >= 0) return run(start);
  for (int s = 0; s < n; ++s)
    if (color[s] == 0)
      if (auto c = run(s); !c.empty()) return c;
  return {};
}

}  // namespace

std::vector<RouteChannel> RouteTable::dependency_cycle() const {
  return cycle_through({-1, -1, -1});
}

std::vector<RouteChannel> RouteTable::cycle_through(const RouteChannel& ch) const {
  auto g = dependency_graph();
  int start = -1;
  if (ch.from >= 0) {
    if (ch.from >= ranks_ || ch.to >= ranks_ || ch.vc >= vcs_ || ch.vc < 0) return {};
    start = static_cast<int>(idx(ch.from, ch.to) * vcs_ + ch.vc);
  }
  std::vector<RouteChannel> out;
  for (int id : find_cycle_ids(g, start)) {
    int vcv = id % vcs_, link = id / vcs_;
    out.push_back({link / ranks_, link % ranks_, vcv});
  }
  return out;
}

std::string RouteTable::describe(const std::vector<RouteChannel>& cycle) {
  std::string s;
  for (const RouteChannel& c : cycle)
    s += (s.empty() ? "" : ", ") + std::to_string(c.from) + "->" + std::to_string(c.to) + " vc" +
         std::to_string(c.vc);
  return s;
}

RouteTable load_route_table(const std::string& path) {
  struct stat st{};
  std::string file = path;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) file = path + "/routes.txt";
  std::ifstream f(file);
  if (!f)
    throw_error(Errc::invalid_argument, "cannot read routing tables '" + file +
                                            "' (make them with `interlace routes gen TOPOLOGY.json -o DIR`)");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_route_table(ss.str(), file);
}

}  // namespace interlace::fabric
