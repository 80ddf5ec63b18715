// Loads a routes directory with the C++ reader (include/interlace/fabric/route_table.hpp)
// and prints what it understood: test_routes_cpp.py compares it with the Python side.
#include "interlace/fabric/route_table.hpp"
#include <cstdio>
#include <exception>
int main(int argc, char** argv) {
  try {
    auto t = interlace::fabric::load_route_table(argv[1]);
    int n = t.ranks(), maxh = 0;
    for (int s = 0; s < n; ++s) for (int d = 0; d < n; ++d) if (s != d && t.hops(s, d) > maxh) maxh = t.hops(s, d);
    auto c = t.dependency_cycle();
    std::printf("ranks %d vcs %d diameter %d cycle [%s]\n", n, t.vcs(), maxh,
                interlace::fabric::RouteTable::describe(c).c_str());
  } catch (const std::exception& e) { std::printf("error: %s\n", e.what()); return 1; }
}
