// Forwarding cost per hop: 8-byte ping-pong latency between rank 0 and rank h
// (h = 1..4 hops) on a routed ring of 8 (shortest paths, dateline VCs), against the
// same pairs unrouted (direct). Ranks are threads of this process; the ranks between
// the two forward while they wait in a barrier. Repetitions interleave every case;
// the figure is the median over repetitions of one-way latency (half a round trip).
//   route_hops [reps=5] [iters=2000] [fabrics=shm,tcp]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "interlace/interlace.hpp"

using namespace interlace;

namespace {

std::string ring8_dir() {
  const int n = 8;
  char tmpl[] = "/tmp/il-route-bench-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::ofstream f(dir + "/routes.txt");
  f << "interlace-routes 1\nranks 8\nvcs 2\nscheme dateline\n";
  for (int r = 0; r < n; ++r) f << "link " << r << " 0 " << (r + 1) % n << " 1\n";
  auto cw = [&](int c, int d) { return (d - c + n) % n <= n / 2; };
  for (int c = 0; c < n; ++c)
    for (int d = 0; d < n; ++d)
      if (c != d) f << "next " << c << ' ' << d << ' ' << (cw(c, d) ? (c + 1) % n : (c + n - 1) % n) << '\n';
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d) f << "vc " << s << ' ' << d << ' ' << ((cw(s, d) ? d < s : d > s) ? 1 : 0) << '\n';
  return dir;
}

// One job: for h = 1..4, ranks 0 and h ping-pong; returns one-way µs per h.
std::vector<double> measure(const std::string& fabric, int iters) {
  std::vector<double> us(5, 0);
  run_ranks_as_threads(8, [&](Runtime& rt) {
    Communicator w = rt.world();
    const int me = w.rank();
    char b[8] = {};
    for (int h = 1; h <= 4; ++h) {
      coll::barrier(w);
      if (me == 0 || me == h) {
        const int peer = me == 0 ? h : 0;
        auto once = [&] {
          if (me == 0) {
            w.send(b, 8, Datatype::uint8, peer, 1);
            w.recv(b, 8, Datatype::uint8, peer, 1);
          } else {
            w.recv(b, 8, Datatype::uint8, peer, 1);
            w.send(b, 8, Datatype::uint8, peer, 1);
          }
        };
        for (int i = 0; i < iters / 10; ++i) once();
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < iters; ++i) once();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (me == 0) us[h] = s / iters / 2 * 1e6;
      }
    }
    coll::barrier(w);
  }, fabric);
  return us;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 2000;
  std::vector<std::string> fabrics;
  std::stringstream fs(argc > 3 ? argv[3] : "shm,tcp");
  for (std::string f; std::getline(fs, f, ',');) fabrics.push_back(f);
  const std::string dir = ring8_dir();
  std::map<std::string, std::vector<std::vector<double>>> runs;  // case -> reps x hops
  for (int rep = 0; rep < reps; ++rep)
    for (const std::string& fab : fabrics)
      for (int routed = 0; routed < 2; ++routed) {
        if (routed) setenv("INTERLACE_ROUTES", dir.c_str(), 1);
        else unsetenv("INTERLACE_ROUTES");
        runs[fab + (routed ? " routed" : " direct")].push_back(measure(fab, iters));
      }
  unsetenv("INTERLACE_ROUTES");
  std::filesystem::remove_all(dir);
  std::printf("# one-way latency, 8 B, median of %d reps x %d round trips (us)\n", reps, iters);
  std::printf("%-12s %8s %8s %8s %8s %14s\n", "case", "1 hop", "2 hops", "3 hops", "4 hops", "per extra hop");
  for (const auto& [name, rs] : runs) {
    double m[5] = {};
    for (int h = 1; h <= 4; ++h) {
      std::vector<double> v;
      for (const auto& r : rs) v.push_back(r[h]);
      m[h] = median(v);
    }
    std::printf("%-12s %8.2f %8.2f %8.2f %8.2f %14.2f\n", name.c_str(), m[1], m[2], m[3], m[4], (m[4] - m[1]) / 3);
  }
  return 0;
}
