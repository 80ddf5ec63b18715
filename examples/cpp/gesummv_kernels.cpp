// GESUMMV (y = alpha*A*x + beta*B*x) as the SMI paper draws it (Fig. 12, right), with
// the kernels of rank 1 as threads connected by an in-process FIFO:
//
//   rank 0:  [GEMV A] --SMI channel, port 0-->  rank 1:  [AXPY] <--LocalStream-- [GEMV B]
//
// Every kernel handles one element per "cycle": a GEMV kernel produces one result
// element per matrix row, the AXPY kernel pops one element from each input and
// writes one element of y.
//   interlace run -n 2 ./build/examples/cpp/interlace-example-gesummv_kernels [N]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <interlace/interlace.hpp>
#include <interlace/stream/channel.hpp>
#include <interlace/stream/kernels.hpp>

namespace {

constexpr float kAlpha = 1.5f, kBeta = -0.75f;
constexpr int kPort = 0;

// Exact in float (multiples of 1/8, small sums): the check can demand equality.
std::vector<float> matrix(int n, int salt) {
  std::vector<float> m(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m[static_cast<size_t>(i) * n + j] = float((i * salt + j * 3) % 11 - 5) / 8.0f;
  return m;
}

float gemv_row(const std::vector<float>& m, const std::vector<float>& x, int i, float scale) {
  const size_t n = x.size();
  float acc = 0.0f;
  for (size_t j = 0; j < n; ++j) acc += m[i * n + j] * x[j];
  return scale * acc;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace interlace;
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  if (w.size() != 2 || n < 1) {
    std::fprintf(stderr, "gesummv_kernels needs 2 ranks and N >= 1 (got %d ranks, N=%d)\n", w.size(), n);
    return 2;
  }
  const auto a = matrix(n, 7), b = matrix(n, 5);
  std::vector<float> x(n);
  for (int j = 0; j < n; ++j) x[j] = float(j % 7 - 3) / 8.0f;

  if (w.rank() == 0) {
    stream::Sender<float> to_axpy(w, 1, kPort, n, n);  // degree n: the GEMV never stalls
    for (int i = 0; i < n; ++i) to_axpy.push(gemv_row(a, x, i, kAlpha));
    rt.finalize();  // returns once the last packet has left
    return 0;
  }

  std::vector<float> y(n);
  stream::LocalStream<float> bx_stream(64);  // a shallow FIFO, as on the chip
  const auto t0 = std::chrono::steady_clock::now();
  stream::run_kernels({
      [&] {  // GEMV B
        for (int i = 0; i < n; ++i) bx_stream.push(gemv_row(b, x, i, kBeta));
      },
      [&] {  // AXPY: one input from the network, one from the local GEMV
        stream::Receiver<float> from_gemv(w, 0, kPort, n, n);
        for (int i = 0; i < n; ++i) y[i] = from_gemv.pop() + bx_stream.pop();
      },
  });
  const double t = seconds_since(t0);

  double max_err = 0;
  for (int i = 0; i < n; ++i) {
    const double ref = gemv_row(a, x, i, kAlpha) + gemv_row(b, x, i, kBeta);
    const double err = std::fabs(y[i] - ref);
    if (!(err <= max_err)) max_err = std::isnan(err) ? INFINITY : err;
  }
  const bool ok = max_err <= 1e-4;
  std::printf("gesummv_kernels N=%d: %.3f ms; max error %.3g: %s\n", n, t * 1e3, max_err, ok ? "OK" : "FAILED");
  rt.finalize();
  return ok ? 0 : 1;
}
