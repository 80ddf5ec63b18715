// Matrix multiply time with automatic result transfer (issue 9; bench/run_art.py):
// C = A x B (n x n doubles), rows split over the ranks, each rank's kernel thread
// computing its rows while ART puts them into rank 0's C. One repeat is timed on rank
// 0 from a barrier to the moment all n*n elements have arrived.
//   art_matmul [n] [reps] [batch_rows] [mode]
//   mode: owner     - ART, the main thread issues the puts (default)
//         producer  - ART, the kernel thread issues them (needs INTERLACE_PROGRESS=thread)
//         bulk      - no ART: the kernel computes every row, then one put_signal
// Prints one line per repeat: "art_matmul n=<n> ranks=<r> mode=<m> rep=<i> seconds=<t>".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <interlace/coll/coll.hpp>
#include <interlace/interlace.hpp>
#include <interlace/pgas/pgas.hpp>
#include <interlace/pgas/result_transfer.hpp>

using namespace interlace;

namespace {
double a_at(size_t i, size_t k) { return static_cast<double>((i * 7 + k * 3) % 17) - 8.0; }
double b_at(size_t k, size_t j) { return static_cast<double>((k * 5 + j * 11) % 13) * 0.25; }

void row_of_c(const std::vector<double>& a_row, const std::vector<double>& b, size_t n, double* out) {
  std::fill(out, out + n, 0.0);
  for (size_t k = 0; k < n; ++k) {
    const double a = a_row[k];
    const double* br = &b[k * n];
    for (size_t j = 0; j < n; ++j) out[j] += a * br[j];
  }
}
}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  const size_t batch_rows = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 4;
  const std::string mode = argc > 4 ? argv[4] : "owner";
  Runtime rt = Runtime::init();
  auto& p = pgas::Pgas::attach(rt, 2 * n * n * sizeof(double) + (16 << 20));
  const int me = p.my_pe(), np = p.n_pes();
  if (n == 0 || reps < 1 || batch_rows == 0 || (mode != "owner" && mode != "producer" && mode != "bulk")) {
    if (me == 0) std::fprintf(stderr, "usage: art_matmul [n>0] [reps>0] [batch_rows>0] [owner|producer|bulk]\n");
    return 2;
  }
  std::vector<double> b(n * n);
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < n; ++j) b[k * n + j] = b_at(k, j);
  const size_t lo = n * me / np, hi = n * (me + 1) / np, rows = hi - lo;
  std::vector<std::vector<double>> a(rows, std::vector<double>(n));
  for (size_t i = lo; i < hi; ++i)
    for (size_t k = 0; k < n; ++k) a[i - lo][k] = a_at(i, k);

  auto* c = static_cast<double*>(p.malloc(n * n * sizeof(double)));
  auto* sig = static_cast<uint64_t*>(p.malloc(sizeof(uint64_t)));
  std::vector<double> local(mode == "bulk" ? rows * n : 0);
  int status = 0;
  for (int rep = 0; rep < reps; ++rep) {
    *sig = 0;
    if (me == 0) std::memset(c, 0, n * n * sizeof(double));
    p.quiet_all();
    coll::barrier(rt.world());
    const auto t0 = std::chrono::steady_clock::now();
    if (rows > 0 && mode == "bulk") {
      std::thread kernel([&] {
        for (size_t i = 0; i < rows; ++i) row_of_c(a[i], b, n, &local[i * n]);
      });
      kernel.join();
      p.put_signal(p.default_domain(), c + lo * n, local.data(), rows * n * sizeof(double), sig,
                   rows * n, pgas::SignalOp::add, 0);
      if (me == 0) pgas::wait_results(p, sig, n * n);
      p.quiet(p.default_domain());
    } else if (rows > 0) {
      pgas::ArtOptions o;
      o.op = pgas::SignalOp::add;
      o.issue = mode == "producer" ? pgas::ArtIssue::producer : pgas::ArtIssue::owner;
      pgas::ResultStream<double> art(p, c + lo * n, rows * n, 0, std::min(rows, batch_rows) * n, sig, o);
      std::thread kernel([&] {
        std::vector<double> row(n);
        for (size_t i = 0; i < rows; ++i) {
          row_of_c(a[i], b, n, row.data());
          art.emit(std::span<const double>(row));
        }
        art.close();
      });
      if (me == 0) pgas::wait_results(p, sig, n * n);
      art.finish();
      kernel.join();
    } else if (me == 0) {
      pgas::wait_results(p, sig, n * n);
    }
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (me == 0) {
      // Spot check against the serial formula (the examples check every element).
      std::vector<double> ar(n), row(n);
      for (size_t i : {size_t{0}, n / 2, n - 1}) {
        for (size_t k = 0; k < n; ++k) ar[k] = a_at(i, k);
        row_of_c(ar, b, n, row.data());
        if (std::memcmp(row.data(), c + i * n, n * sizeof(double)) != 0) {
          std::fprintf(stderr, "art_matmul: row %zu of C is wrong\n", i);
          status = 1;
        }
      }
      std::printf("art_matmul n=%zu ranks=%d mode=%s rep=%d seconds=%.6f\n", n, np, mode.c_str(), rep, dt);
      std::fflush(stdout);
    }
    coll::barrier(rt.world());
  }
  p.free(sig);
  p.free(c);
  rt.finalize();
  return status;
}
