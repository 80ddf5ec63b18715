// Channel throughput between 2 ranks: per-element push/pop (C++ Sender/Receiver and
// the inline SMI_Push/SMI_Pop of smi.h) for 1-, 4- and 8-byte elements, and push_n /
// pop_n in 1 MiB pieces, next to one thread's memcpy of the same pieces.
//   interlace run -n 2 ./stream_throughput [--quick]
// Rank 1 times from the start barrier to its last pop; one JSON line per result.
#include <smi.h>

#include <cstdint>
#include <vector>

#include <interlace/compat/smi.hpp>
#include <interlace/stream/channel.hpp>

#include "stream_common.hpp"

using namespace interlace;
using streambench::barrier;

namespace {

template <class T>
double per_element_cpp(const Communicator& w, size_t n) {
  barrier(w);
  const double t0 = bench_now();
  if (w.rank() == 0) {
    stream::Sender<T> s(w, 1, 1, n, SMI_DEFAULT_DEGREE_BYTES / sizeof(T));
    for (size_t i = 0; i < n; ++i) s.push(static_cast<T>(i));
    return 0;
  }
  stream::Receiver<T> r(w, 0, 1, n, SMI_DEFAULT_DEGREE_BYTES / sizeof(T));
  T sum = 0, want = 0;
  for (size_t i = 0; i < n; ++i) sum += r.pop(), want += static_cast<T>(i);
  const double t = bench_now() - t0;
  if (sum != want) std::fprintf(stderr, "stream_throughput: wrong checksum (C++ %zu-byte)\n", sizeof(T));
  return t;
}

template <class T>
double per_element_smi(const Communicator& w, size_t n, SMI_Datatype type) {
  barrier(w);
  const double t0 = bench_now();
  if (w.rank() == 0) {
    SMI_Channel s = SMI_Open_send_channel(static_cast<int>(n), type, 1, 2, SMI_COMM_WORLD);
    for (size_t i = 0; i < n; ++i) {
      T v = static_cast<T>(i);
      SMI_Push(&s, &v);
    }
    return 0;
  }
  SMI_Channel r = SMI_Open_recv_channel(static_cast<int>(n), type, 0, 2, SMI_COMM_WORLD);
  T sum = 0, want = 0;
  for (size_t i = 0; i < n; ++i) {
    T v;
    SMI_Pop(&r, &v);
    sum += v, want += static_cast<T>(i);
  }
  const double t = bench_now() - t0;
  if (sum != want) std::fprintf(stderr, "stream_throughput: wrong checksum (smi %zu-byte)\n", sizeof(T));
  return t;
}

double bulk(const Communicator& w, size_t total, size_t piece, std::vector<char>& buf) {
  const size_t n = total / 8, per = piece / 8;
  barrier(w);
  const double t0 = bench_now();
  if (w.rank() == 0) {
    stream::SendChannel s(w, 1, 3, n, Datatype::uint64, std::max<size_t>(per, SMI_DEFAULT_DEGREE_BYTES / 8));
    for (size_t i = 0; i < n; i += per) s.push_n(buf.data(), std::min(per, n - i));
    return 0;
  }
  stream::RecvChannel r(w, 0, 3, n, Datatype::uint64, std::max<size_t>(per, SMI_DEFAULT_DEGREE_BYTES / 8));
  for (size_t i = 0; i < n; i += per) r.pop_n(buf.data(), std::min(per, n - i));
  return bench_now() - t0;
}

double copy(size_t total, size_t piece, std::vector<char>& a, std::vector<char>& b) {
  const double t0 = bench_now();
  for (size_t done = 0; done < total; done += piece) {
    std::memcpy(b.data(), a.data(), piece);
    asm volatile("" : : "r"(b.data()) : "memory");  // keep every copy
  }
  return bench_now() - t0;
}

}  // namespace

int main(int argc, char** argv) {
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  interlace::smi::attach(rt);  // the SMI variants run on the same runtime
  SMI_Init(&argc, &argv);
  if (w.size() != 2) {
    std::fprintf(stderr, "stream_throughput needs 2 ranks, got %d\n", w.size());
    return 2;
  }
  bench_pin(w.rank());
  const bool quick = streambench::has_flag(argc, argv, "--quick");
  const size_t reps = quick ? 3 : 7;
  const size_t total = quick ? (8u << 20) : (64u << 20);  // bytes per repetition
  const size_t piece = 1u << 20;
  std::vector<char> buf(piece, 1), other(piece, 2);

  std::vector<double> t[8];
  for (size_t rep = 0; rep < reps + 1; ++rep) {  // rep 0 warms up
    // Interleaved, so a change of placement or load hits every variant alike.
    double r[8] = {per_element_cpp<uint8_t>(w, total / 4), per_element_cpp<uint32_t>(w, total / 4),
                   per_element_cpp<uint64_t>(w, total / 8), per_element_smi<uint8_t>(w, total / 4, SMI_UCHAR),
                   per_element_smi<uint32_t>(w, total / 4, SMI_UINT), per_element_smi<uint64_t>(w, total / 8, SMI_ULONG),
                   bulk(w, total, piece, buf), w.rank() == 1 ? copy(total, piece, buf, other) : 0};
    if (rep > 0)
      for (int k = 0; k < 8; ++k) t[k].push_back(r[k]);
  }
  if (w.rank() == 1) {
    const char* names[] = {"push-cpp", "push-cpp", "push-cpp", "push-smi", "push-smi", "push-smi", "push_n-1MiB", "memcpy-1MiB"};
    const long esz[] = {1, 4, 8, 1, 4, 8, 8, 1};
    const double count[] = {total / 4.0, total / 4.0, total / 8.0, total / 4.0, total / 4.0, total / 8.0, total / 8.0, double(total)};
    for (int k = 0; k < 8; ++k) {
      const double sec = streambench::median(t[k]);
      streambench::report("throughput", names[k], esz[k], count[k] / sec, "elem/s", reps);
      streambench::report("throughput", names[k], esz[k], count[k] * esz[k] / sec / 1e9, "GB/s", reps);
    }
  }
  SMI_Finalize();
  return 0;
}
