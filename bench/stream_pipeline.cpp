// Producer/consumer pipeline with computation on both sides (2 ranks): rank 0 computes
// N elements, rank 1 computes on each of them. Streaming through a channel overlaps
// the two; compute-everything-then-send with p2p serialises them. Also times each
// side alone on one rank: the ideal pipeline takes max(producer, consumer).
//   interlace run -n 2 ./stream_pipeline [--quick] [--n N] [--work W]
// (bench/stream_pipeline_mpi.c is the same bulk variant over MPI.)
#include <smi.h>

#include <cstdlib>
#include <vector>

#include <interlace/compat/smi.hpp>
#include <interlace/stream/channel.hpp>

extern "C" {
#include "stream_work.h"
}
#include "stream_common.hpp"

using namespace interlace;

namespace {

struct Params { int n, work; };

float checksum_of(const Params& p) {
  float sum = 0;
  for (int i = 0; i < p.n; ++i) sum += stream_work(stream_work(float(i) * 1e-6f, p.work), p.work);
  return sum;
}

double streamed(const Communicator& w, const Params& p, float* sum, bool smi) {
  streambench::barrier(w);
  const double t0 = bench_now();
  if (w.rank() == 0) {
    if (smi) {
      SMI_Channel s = SMI_Open_send_channel(p.n, SMI_FLOAT, 1, 1, SMI_COMM_WORLD);
      for (int i = 0; i < p.n; ++i) {
        float v = stream_work(float(i) * 1e-6f, p.work);
        SMI_Push(&s, &v);
      }
    } else {
      stream::Sender<float> s(w, 1, 1, p.n, SMI_DEFAULT_DEGREE_BYTES / sizeof(float));
      for (int i = 0; i < p.n; ++i) s.push(stream_work(float(i) * 1e-6f, p.work));
    }
    return 0;
  }
  float acc = 0;
  if (smi) {
    SMI_Channel r = SMI_Open_recv_channel(p.n, SMI_FLOAT, 0, 1, SMI_COMM_WORLD);
    for (int i = 0; i < p.n; ++i) {
      float v;
      SMI_Pop(&r, &v);
      acc += stream_work(v, p.work);
    }
  } else {
    stream::Receiver<float> r(w, 0, 1, p.n, SMI_DEFAULT_DEGREE_BYTES / sizeof(float));
    for (int i = 0; i < p.n; ++i) acc += stream_work(r.pop(), p.work);
  }
  *sum = acc;
  return bench_now() - t0;
}

double bulk(const Communicator& w, const Params& p, std::vector<float>& buf, float* sum) {
  streambench::barrier(w);
  const double t0 = bench_now();
  if (w.rank() == 0) {
    for (int i = 0; i < p.n; ++i) buf[i] = stream_work(float(i) * 1e-6f, p.work);
    w.send(buf.data(), p.n, Datatype::float32, 1, 2);
    return 0;
  }
  w.recv(buf.data(), p.n, Datatype::float32, 0, 2);
  float acc = 0;
  for (int i = 0; i < p.n; ++i) acc += stream_work(buf[i], p.work);
  *sum = acc;
  return bench_now() - t0;
}

// Each side alone (rank 1 does both, rank 0 idles at the barrier): {producer, consumer}.
void alone(const Communicator& w, const Params& p, std::vector<float>& buf, double* tp, double* tc) {
  streambench::barrier(w);
  if (w.rank() == 0) return;
  double t0 = bench_now();
  for (int i = 0; i < p.n; ++i) buf[i] = stream_work(float(i) * 1e-6f, p.work);
  *tp = bench_now() - t0;
  t0 = bench_now();
  float acc = 0;
  for (int i = 0; i < p.n; ++i) acc += stream_work(buf[i], p.work);
  *tc = bench_now() - t0;
  asm volatile("" : : "x"(acc));
}

int int_flag(int argc, char** argv, const char* flag, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], flag)) return std::atoi(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  interlace::smi::attach(rt);
  SMI_Init(&argc, &argv);
  if (w.size() != 2) {
    std::fprintf(stderr, "stream_pipeline needs 2 ranks, got %d\n", w.size());
    return 2;
  }
  bench_pin(w.rank());
  const bool quick = streambench::has_flag(argc, argv, "--quick");
  const Params p{int_flag(argc, argv, "--n", quick ? PIPE_N_DEFAULT / 4 : PIPE_N_DEFAULT),
                 int_flag(argc, argv, "--work", PIPE_WORK_DEFAULT)};
  const size_t reps = quick ? 3 : 9;
  const float want = w.rank() == 1 ? checksum_of(p) : 0;
  std::vector<float> buf(p.n);
  std::vector<double> t[5];
  for (size_t rep = 0; rep < reps + 1; ++rep) {
    float s1 = want, s2 = want, s3 = want;
    double r[5] = {};
    // Rotate the order every repetition: a variant that follows a long idle wait
    // (rank 0 sleeps while rank 1 runs both sides alone) must not always be the same.
    for (size_t k = 0; k < 4; ++k) {
      switch ((k + rep) % 4) {
        case 0: alone(w, p, buf, &r[0], &r[1]); break;
        case 1: r[2] = streamed(w, p, &s1, false); break;
        case 2: r[3] = streamed(w, p, &s2, true); break;
        case 3: r[4] = bulk(w, p, buf, &s3); break;
      }
    }
    if (w.rank() == 1 && (s1 != want || s2 != want || s3 != want))
      std::fprintf(stderr, "stream_pipeline: wrong checksum\n");
    if (rep > 0)
      for (int k = 0; k < 5; ++k) t[k].push_back(r[k]);
  }
  if (w.rank() == 1) {
    const char* names[] = {"producer-alone", "consumer-alone", "stream-cpp", "stream-smi", "bulk-p2p"};
    for (int k = 0; k < 5; ++k)
      streambench::report("pipeline", names[k], p.n, streambench::median(t[k]) * 1e3, "ms", reps);
  }
  SMI_Finalize();
  return 0;
}
