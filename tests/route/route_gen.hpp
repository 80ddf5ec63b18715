// Small routes.txt generators for the route layer tests (the format of docs/routing.md;
// `interlace routes gen` is the real generator). Each returns the file's text.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace route_gen {

struct Link {
  int a, pa, b, pb;
};

inline std::string table(int n, int vcs, const std::string& scheme, const std::vector<Link>& links,
                         const std::function<int(int, int)>& next, const std::function<int(int, int)>& vc) {
  std::string t = "interlace-routes 1\nranks " + std::to_string(n) + "\nvcs " + std::to_string(vcs) +
                  "\nscheme " + scheme + "\n";
  for (const Link& l : links)
    t += "link " + std::to_string(l.a) + " " + std::to_string(l.pa) + " " + std::to_string(l.b) + " " +
         std::to_string(l.pb) + "\n";
  for (int c = 0; c < n; ++c)
    for (int d = 0; d < n; ++d)
      if (c != d) t += "next " + std::to_string(c) + " " + std::to_string(d) + " " + std::to_string(next(c, d)) + "\n";
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d) t += "vc " + std::to_string(s) + " " + std::to_string(d) + " " + std::to_string(vc(s, d)) + "\n";
  return t;
}

inline std::vector<Link> ring_links(int n) {
  std::vector<Link> l;
  for (int r = 0; r < n && n > 1; ++r)
    if (n > 2 || r == 0) l.push_back({r, 0, (r + 1) % n, 1});
  return l;
}

// Shortest paths (ties clockwise). dateline: a pair whose path crosses the link between
// n-1 and 0 travels on vc 1, which breaks the cycles (a path is at most half the ring).
// cyclic: every pair clockwise on vc 0, whose dependencies form the cycle 0->1->..->0.
inline std::string ring(int n, bool cyclic = false) {
  auto cw = [=](int c, int d) { return cyclic || (d - c + n) % n <= n / 2; };
  auto next = [=](int c, int d) { return cw(c, d) ? (c + 1) % n : (c + n - 1) % n; };
  auto vc = [=](int s, int d) { return !cyclic && (cw(s, d) ? d < s : d > s) ? 1 : 0; };
  return table(n, cyclic ? 1 : 2, cyclic ? "cyclic" : "dateline", ring_links(n), next, vc);
}

inline std::string line(int n) {  // a bus: 0 - 1 - ... - n-1
  std::vector<Link> l;
  for (int r = 0; r + 1 < n; ++r) l.push_back({r, 0, r + 1, 1});
  return table(n, 1, "line", l, [](int c, int d) { return d > c ? c + 1 : c - 1; },
               [](int, int) { return 0; });
}

// rows x cols, rank = y * cols + x, XY routing (x first) on one VC.
inline std::string mesh(int rows, int cols) {
  std::vector<Link> l;
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x) {
      const int r = y * cols + x;
      if (x + 1 < cols) l.push_back({r, 0, r + 1, 1});
      if (y + 1 < rows) l.push_back({r, 2, r + cols, 3});
    }
  auto next = [=](int c, int d) {
    const int cx = c % cols, dx = d % cols;
    if (cx != dx) return dx > cx ? c + 1 : c - 1;
    return d > c ? c + cols : c - cols;
  };
  return table(rows * cols, 1, "xy", l, next, [](int, int) { return 0; });
}

inline std::string full(int n) {
  std::vector<Link> l;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) l.push_back({a, b, b, a});
  return table(n, 1, "direct", l, [](int, int d) { return d; }, [](int, int) { return 0; });
}

// A directory holding routes.txt, removed with the object.
struct Dir {
  std::string path;
  explicit Dir(const std::string& text) {
    char tmpl[] = "/tmp/il-routes-XXXXXX";
    path = mkdtemp(tmpl);
    std::ofstream(path + "/routes.txt") << text;
  }
  ~Dir() { std::filesystem::remove_all(path); }
  Dir(const Dir&) = delete;
  Dir& operator=(const Dir&) = delete;
};

// Sets INTERLACE_* variables for one test (Config::from_env reads them), restoring after.
struct Env {
  std::vector<std::pair<std::string, std::string>> saved;
  Env(std::initializer_list<std::pair<const char*, std::string>> vars) {
    for (const auto& [k, v] : vars) {
      const char* old = std::getenv(k);
      saved.emplace_back(k, old ? std::string("=") + old : std::string());
      setenv(k, v.c_str(), 1);
    }
  }
  ~Env() {
    for (const auto& [k, v] : saved)
      if (v.empty()) unsetenv(k.c_str());
      else setenv(k.c_str(), v.c_str() + 1, 1);
  }
};

}  // namespace route_gen
