// Matrix multiply with automatic result transfer (FSHMEM section V, Fig. 6a):
// C = A x B with the rows of C split over the ranks. Each rank's kernel thread
// computes its rows and emits them; ART puts every `batch_rows` rows into rank 0's
// symmetric C while the kernel computes the next ones, all producers adding to one
// signal. Rank 0 waits for n*n elements and checks C against a serial product.
//   interlace run -n 2 ./interlace-example-art_matmul [n] [batch_rows]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <interlace/coll/coll.hpp>
#include <interlace/interlace.hpp>
#include <interlace/pgas/pgas.hpp>
#include <interlace/pgas/result_transfer.hpp>

using namespace interlace;

namespace {
// Deterministic inputs: every rank builds the parts it needs without communication.
double a_at(size_t i, size_t k) { return static_cast<double>((i * 7 + k * 3) % 17) - 8.0; }
double b_at(size_t k, size_t j) { return static_cast<double>((k * 5 + j * 11) % 13) * 0.25; }

// One row of C (i-k-j order: the inner loop streams a row of B).
void row_of_c(const std::vector<double>& b, size_t n, size_t i, double* out) {
  for (size_t j = 0; j < n; ++j) out[j] = 0;
  for (size_t k = 0; k < n; ++k) {
    const double a = a_at(i, k);
    const double* br = &b[k * n];
    for (size_t j = 0; j < n; ++j) out[j] += a * br[j];
  }
}
}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  const size_t batch_rows = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1;
  Runtime rt = Runtime::init();
  auto& p = pgas::Pgas::attach(rt);
  const int me = p.my_pe(), np = p.n_pes();
  if (n == 0 || batch_rows == 0) {
    if (me == 0) std::fprintf(stderr, "usage: art_matmul [n > 0] [batch_rows > 0]\n");
    return 2;
  }
  std::vector<double> b(n * n);
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < n; ++j) b[k * n + j] = b_at(k, j);

  auto* c = static_cast<double*>(p.malloc(n * n * sizeof(double)));
  auto* sig = static_cast<uint64_t*>(p.malloc(sizeof(uint64_t)));
  *sig = 0;
  coll::barrier(rt.world());

  const size_t lo = n * me / np, hi = n * (me + 1) / np, rows = hi - lo;
  int status = 0;
  if (rows > 0) {
    pgas::ArtOptions o;
    o.op = pgas::SignalOp::add;  // every producer adds its rows to rank 0's one signal
    const size_t batch = std::min(rows, batch_rows) * n;
    pgas::ResultStream<double> art(p, c + lo * n, rows * n, 0, batch, sig, o);
    std::thread kernel([&] {
      std::vector<double> row(n);
      for (size_t i = lo; i < hi; ++i) {
        row_of_c(b, n, i, row.data());
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

  if (me == 0) {
    std::vector<double> row(n);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      row_of_c(b, n, i, row.data());
      for (size_t j = 0; j < n; ++j)
        if (std::fabs(row[j] - c[i * n + j]) > 1e-9 * (1 + std::fabs(row[j]))) {
          if (bad++ < 5)
            std::fprintf(stderr, "C[%zu][%zu] = %g, serial %g\n", i, j, c[i * n + j], row[j]);
        }
    }
    if (bad) {
      std::fprintf(stderr, "art_matmul: %zu of %zu elements differ\n", bad, n * n);
      status = 1;
    } else {
      std::printf("art_matmul OK: %zux%zu on %d ranks\n", n, n, np);
    }
  }
  coll::barrier(rt.world());
  p.free(sig);
  p.free(c);
  rt.finalize();
  return status;
}
