// One-element channels between 2 ranks: round-trip latency of a ping-pong through
// freshly opened channels (C++ and smi.h) next to p2p's 8-byte ping-pong, and the
// rate at which one-element channels can be opened back to back.
//   interlace run -n 2 ./stream_latency [--quick]
// Variants run interleaved; each repetition is timed on rank 0 (latency) or rank 1
// (open rate); one JSON line per result with the median.
#include <smi.h>

#include <cstdint>

#include <interlace/compat/smi.hpp>
#include <interlace/stream/channel.hpp>

#include "stream_common.hpp"

using namespace interlace;

namespace {

constexpr int kPing = 1, kPong = 2, kOpen = 3;

double pingpong_channel(const Communicator& w, int iters) {
  const int peer = 1 - w.rank();
  uint64_t v = 1;
  streambench::barrier(w);
  const double t0 = bench_now();
  for (int i = 0; i < iters; ++i) {
    if (w.rank() == 0) {
      stream::Sender<uint64_t>(w, peer, kPing, 1, 1).push(v);
      v = stream::Receiver<uint64_t>(w, peer, kPong, 1, 1).pop();
    } else {
      v = stream::Receiver<uint64_t>(w, peer, kPing, 1, 1).pop();
      stream::Sender<uint64_t>(w, peer, kPong, 1, 1).push(v + 1);
    }
  }
  return (bench_now() - t0) / iters;
}

double pingpong_smi(const Communicator& w, int iters) {
  const int peer = 1 - w.rank();
  uint64_t v = 1;
  streambench::barrier(w);
  const double t0 = bench_now();
  for (int i = 0; i < iters; ++i) {
    if (w.rank() == 0) {
      SMI_Channel s = SMI_Open_send_channel(1, SMI_ULONG, peer, kPing, SMI_COMM_WORLD);
      SMI_Push(&s, &v);
      SMI_Channel r = SMI_Open_recv_channel(1, SMI_ULONG, peer, kPong, SMI_COMM_WORLD);
      SMI_Pop(&r, &v);
    } else {
      SMI_Channel r = SMI_Open_recv_channel(1, SMI_ULONG, peer, kPing, SMI_COMM_WORLD);
      SMI_Pop(&r, &v);
      ++v;
      SMI_Channel s = SMI_Open_send_channel(1, SMI_ULONG, peer, kPong, SMI_COMM_WORLD);
      SMI_Push(&s, &v);
    }
  }
  return (bench_now() - t0) / iters;
}

double pingpong_p2p(const Communicator& w, int iters) {
  const int peer = 1 - w.rank();
  uint64_t v = 1;
  streambench::barrier(w);
  const double t0 = bench_now();
  for (int i = 0; i < iters; ++i) {
    if (w.rank() == 0) {
      w.send(&v, 1, Datatype::uint64, peer, kPing);
      w.recv(&v, 1, Datatype::uint64, peer, kPong);
    } else {
      w.recv(&v, 1, Datatype::uint64, peer, kPing);
      ++v;
      w.send(&v, 1, Datatype::uint64, peer, kPong);
    }
  }
  return (bench_now() - t0) / iters;
}

// Channels per second: rank 0 opens and fills one-element channels back to back,
// rank 1 opens and drains them; rank 1's time counts.
double open_rate(const Communicator& w, int n, bool smi) {
  streambench::barrier(w);
  const double t0 = bench_now();
  uint64_t sum = 0;
  for (int i = 0; i < n; ++i) {
    uint64_t v = static_cast<uint64_t>(i);
    if (smi) {
      if (w.rank() == 0) {
        SMI_Channel s = SMI_Open_send_channel(1, SMI_ULONG, 1, kOpen, SMI_COMM_WORLD);
        SMI_Push(&s, &v);
      } else {
        SMI_Channel r = SMI_Open_recv_channel(1, SMI_ULONG, 0, kOpen, SMI_COMM_WORLD);
        SMI_Pop(&r, &v);
        sum += v;
      }
    } else if (w.rank() == 0) {
      stream::Sender<uint64_t>(w, 1, kOpen, 1, 1).push(v);
    } else {
      sum += stream::Receiver<uint64_t>(w, 0, kOpen, 1, 1).pop();
    }
  }
  const double t = bench_now() - t0;
  if (w.rank() == 1 && sum != uint64_t(n) * (n - 1) / 2) std::fprintf(stderr, "stream_latency: open-rate checksum wrong\n");
  streambench::barrier(w);  // the sender may be far ahead: let it drain before the next variant
  return n / t;
}

}  // namespace

int main(int argc, char** argv) {
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  interlace::smi::attach(rt);
  SMI_Init(&argc, &argv);
  if (w.size() != 2) {
    std::fprintf(stderr, "stream_latency needs 2 ranks, got %d\n", w.size());
    return 2;
  }
  bench_pin(w.rank());
  const bool quick = streambench::has_flag(argc, argv, "--quick");
  const size_t reps = quick ? 3 : 11;
  const int iters = quick ? 2000 : 20000, opens = quick ? 20000 : 200000;
  std::vector<double> t[5];
  for (size_t rep = 0; rep < reps + 1; ++rep) {
    double r[5] = {pingpong_channel(w, iters), pingpong_smi(w, iters), pingpong_p2p(w, iters),
                   open_rate(w, opens, false), open_rate(w, opens, true)};
    if (rep > 0)
      for (int k = 0; k < 5; ++k) t[k].push_back(r[k]);
  }
  if (w.rank() == 0) {
    streambench::report("roundtrip", "channel-cpp", 8, streambench::median(t[0]) * 1e6, "us", reps);
    streambench::report("roundtrip", "channel-smi", 8, streambench::median(t[1]) * 1e6, "us", reps);
    streambench::report("roundtrip", "p2p", 8, streambench::median(t[2]) * 1e6, "us", reps);
  } else {
    streambench::report("open", "channel-cpp", 8, streambench::median(t[3]), "channels/s", reps);
    streambench::report("open", "channel-smi", 8, streambench::median(t[4]), "channels/s", reps);
  }
  SMI_Finalize();
  return 0;
}
