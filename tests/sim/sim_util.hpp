// Helpers of the sim fabric tests: scoped environment variables, a routes directory
// for a linear bus, and measurements in virtual time over run_ranks_as_threads.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "common/scoped_env.hpp"

namespace simtest {

using ScopedEnv = testutil::ScopedEnv;

// A temporary directory removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/interlace-simtest-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// routes.txt for n ranks on a linear bus 0 - 1 - ... - n-1 (port 1 to the right,
// port 0 to the left), the topology SMI's bandwidth and latency runs used (sec. 5.3.1).
inline void write_bus_routes(const std::filesystem::path& dir, int n) {
  std::ofstream f(dir / "routes.txt");
  f << "interlace-routes 1\nranks " << n << "\nvcs 1\nscheme bus\n";
  for (int i = 0; i + 1 < n; ++i) f << "link " << i << " 1 " << i + 1 << " 0\n";
  for (int c = 0; c < n; ++c)
    for (int d = 0; d < n; ++d) {
      if (c == d) continue;
      f << "next " << c << " " << d << " " << (d > c ? c + 1 : c - 1) << "\n";
      f << "vc " << c << " " << d << " 0\n";
    }
}

}  // namespace simtest
