// 2-D convolution with automatic result transfer (FSHMEM section V, Fig. 6b): an
// h x w image convolved with a k x k filter (zero padding, output h x w), the rows
// split over the ranks. Each rank holds only its own input rows in symmetric memory
// and fetches the k/2 halo rows above and below from its neighbours with one-sided
// gets; its kernel thread then computes its output rows and ART puts every
// `batch_rows` rows into rank 0's output. Rank 0 checks against a serial convolution.
//   interlace run -n 2 ./interlace-example-art_conv [h] [w] [k] [batch_rows]
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
float in_at(size_t i, size_t j) { return static_cast<float>((i * 13 + j * 7) % 23) - 11.0f; }
float filt_at(size_t a, size_t b) { return static_cast<float>((a * 3 + b * 5) % 7) * 0.125f - 0.375f; }

// Output row `i` from `rows`: a function giving input row r (nullptr outside the image).
template <class RowOf>
void conv_row(RowOf rows, size_t h, size_t w, size_t k, size_t i, float* out) {
  const long r = static_cast<long>(k / 2);
  for (size_t j = 0; j < w; ++j) out[j] = 0;
  for (long a = -r; a <= r; ++a) {
    const long src = static_cast<long>(i) + a;
    if (src < 0 || src >= static_cast<long>(h)) continue;
    const float* in = rows(static_cast<size_t>(src));
    for (long bb = -r; bb <= r; ++bb) {
      const float f = filt_at(static_cast<size_t>(a + r), static_cast<size_t>(bb + r));
      const size_t j0 = bb < 0 ? static_cast<size_t>(-bb) : 0;
      const size_t j1 = bb > 0 ? w - static_cast<size_t>(bb) : w;
      for (size_t j = j0; j < j1; ++j) out[j] += f * in[static_cast<long>(j) + bb];
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  const size_t h = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  const size_t w = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 256;
  const size_t k = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 5;
  const size_t batch_rows = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 2;
  Runtime rt = Runtime::init();
  auto& p = pgas::Pgas::attach(rt);
  const int me = p.my_pe(), np = p.n_pes();
  if (h == 0 || w == 0 || k % 2 == 0 || batch_rows == 0) {
    if (me == 0) std::fprintf(stderr, "usage: art_conv [h>0] [w>0] [k odd] [batch_rows>0]\n");
    return 2;
  }
  const size_t halo = k / 2;
  auto first = [&](int r) { return h * static_cast<size_t>(r) / static_cast<size_t>(np); };
  const size_t lo = first(me), hi = first(me + 1), rows = hi - lo;
  const size_t max_rows = h / static_cast<size_t>(np) + 1;

  // Symmetric: each rank's own input rows, the assembled output on rank 0, a signal.
  auto* own = static_cast<float*>(p.malloc(max_rows * w * sizeof(float)));
  auto* out = static_cast<float*>(p.malloc(h * w * sizeof(float)));
  auto* sig = static_cast<uint64_t*>(p.malloc(sizeof(uint64_t)));
  *sig = 0;
  for (size_t i = lo; i < hi; ++i)
    for (size_t j = 0; j < w; ++j) own[(i - lo) * w + j] = in_at(i, j);
  p.quiet_all();
  coll::barrier(rt.world());

  // The rows this rank reads: its own and the halo, fetched one-sidedly from the
  // ranks that own them (a halo may span several ranks when they hold few rows).
  const size_t glo = lo >= halo ? lo - halo : 0, ghi = std::min(h, hi + halo);
  std::vector<float> local((ghi - glo) * w);
  for (size_t i = glo; i < ghi; ++i) {
    int owner = 0;
    while (first(owner + 1) <= i) ++owner;
    float* dst = &local[(i - glo) * w];
    const float* src = own + (i - first(owner)) * w;
    if (owner == me) std::copy(src, src + w, dst);
    else p.get(p.default_domain(), dst, src, w * sizeof(float), owner);
  }

  int status = 0;
  if (rows > 0) {
    pgas::ArtOptions o;
    o.op = pgas::SignalOp::add;
    pgas::ResultStream<float> art(p, out + lo * w, rows * w, 0, std::min(rows, batch_rows) * w, sig, o);
    std::thread kernel([&] {
      std::vector<float> row(w);
      auto row_of = [&](size_t r) { return &local[(r - glo) * w]; };
      for (size_t i = lo; i < hi; ++i) {
        conv_row(row_of, h, w, k, i, row.data());
        art.emit(std::span<const float>(row));
      }
      art.close();
    });
    if (me == 0) pgas::wait_results(p, sig, h * w);
    art.finish();
    kernel.join();
  } else if (me == 0) {
    pgas::wait_results(p, sig, h * w);
  }

  if (me == 0) {
    std::vector<float> image(h * w), row(w);
    for (size_t i = 0; i < h; ++i)
      for (size_t j = 0; j < w; ++j) image[i * w + j] = in_at(i, j);
    auto row_of = [&](size_t r) { return &image[r * w]; };
    size_t bad = 0;
    for (size_t i = 0; i < h; ++i) {
      conv_row(row_of, h, w, k, i, row.data());
      for (size_t j = 0; j < w; ++j)
        if (std::fabs(row[j] - out[i * w + j]) > 1e-4f * (1 + std::fabs(row[j]))) {
          if (bad++ < 5) std::fprintf(stderr, "out[%zu][%zu] = %g, serial %g\n", i, j, out[i * w + j], row[j]);
        }
    }
    if (bad) {
      std::fprintf(stderr, "art_conv: %zu of %zu elements differ\n", bad, h * w);
      status = 1;
    } else {
      std::printf("art_conv OK: %zux%zu, %zux%zu filter, on %d ranks\n", h, w, k, k, np);
    }
  }
  coll::barrier(rt.world());
  p.free(sig);
  p.free(out);
  p.free(own);
  rt.finalize();
  return status;
}
