// interlace's side of the p2p comparison: the same measurements as mpi_pingpong.c, line
// for line (same sizes, iteration counts, warm-up, sync and statistics from
// bench_common.h), so that any difference in the figures is the library's.
//   latency:   half round trip of blocking send/recv ping-pong (us)
//   bandwidth: windows of BENCH_WINDOW isend/irecv + wait_all, then a 1-byte ack (GB/s)
// Run with exactly 2 ranks (interlace run -n 2 p2p_pingpong); rank 0 prints JSON lines.
#include "bench_common.h"

#include <array>
#include <cstdio>
#include <exception>

#include "interlace/interlace.hpp"

namespace {

constexpr int kTagData = 1, kTagAck = 2, kTagSync = 3;
constexpr auto kBytes = interlace::Datatype::bytes;

struct Bench {
  interlace::Communicator comm;
  int rank = 0;
  char* sbuf = nullptr;
  char* rbuf = nullptr;

  // A 1-byte exchange, as in the MPI program, so both sides start timing together.
  void sync_pair() const {
    char a = 0, b = 0;
    comm.sendrecv(&a, 1, kBytes, 1 - rank, kTagSync, &b, 1, kBytes, 1 - rank, kTagSync);
  }

  // Rank 0's value wins: only rank 0's clock calibrates.
  int agree(int n) const {
    if (rank == 0)
      comm.send(&n, 1, interlace::Datatype::int32, 1, kTagSync);
    else
      comm.recv(&n, 1, interlace::Datatype::int32, 0, kTagSync);
    return n;
  }

  // Returns the number of wrong bytes rank 1 received (0 on rank 0).
  size_t verify(size_t n) const {
    if (rank == 0) {
      memset(sbuf, bench_pattern(n), n);
      comm.send(sbuf, n, kBytes, 1, kTagData);
      return 0;
    }
    memset(rbuf, 0, n);
    comm.recv(rbuf, n, kBytes, 0, kTagData);
    return bench_check(rbuf, n);
  }

  double pingpong(size_t n, int iters) const {
    sync_pair();
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) {
      if (rank == 0) {
        comm.send(sbuf, n, kBytes, 1, kTagData);
        comm.recv(rbuf, n, kBytes, 1, kTagData);
      } else {
        comm.recv(rbuf, n, kBytes, 0, kTagData);
        comm.send(sbuf, n, kBytes, 0, kTagData);
      }
    }
    return (bench_now() - t0) / iters / 2 * 1e6;
  }

  double stream(size_t n, int windows) const {
    std::array<interlace::Request, BENCH_WINDOW> req;
    char ack = 0;
    sync_pair();
    double t0 = bench_now();
    for (int w = 0; w < windows; w++) {
      // One buffer per window, as in the MPI program (see there for why).
      if (rank == 0) {
        for (auto& r : req) r = comm.isend(sbuf, n, kBytes, 1, kTagData);
        interlace::Request::wait_all(req);
        comm.recv(&ack, 1, kBytes, 1, kTagAck);
      } else {
        for (auto& r : req) r = comm.irecv(rbuf, n, kBytes, 0, kTagData);
        interlace::Request::wait_all(req);
        comm.send(&ack, 1, kBytes, 0, kTagAck);
      }
    }
    double t = bench_now() - t0;
    return double(n) * BENCH_WINDOW * windows / t / 1e9;
  }
};

int wrong(size_t bad, size_t n) {
  std::fprintf(stderr, "p2p_pingpong: %zu of %zu bytes wrong\n", bad, n);
  return 3;
}

int run(int argc, char** argv) {
  auto rt = interlace::Runtime::init();
  Bench b;
  b.comm = rt.world();
  b.rank = b.comm.rank();
  if (b.comm.size() != 2) {
    std::fprintf(stderr, "p2p_pingpong: needs exactly 2 ranks, got %d\n", b.comm.size());
    return 2;
  }
  bench_opts o = bench_parse(argc, argv);
  bench_pin(b.rank);
  size_t cap = o.bw_max > o.lat_max ? o.bw_max : o.lat_max;
  b.sbuf = static_cast<char*>(aligned_alloc(4096, cap));
  b.rbuf = static_cast<char*>(aligned_alloc(4096, cap));
  memset(b.sbuf, 1, cap);  // fault the pages in now, not inside a timed loop
  memset(b.rbuf, 0, cap);
  double v[BENCH_MAX_REPS];

  for (size_t n = o.lat ? o.lat_min : 0; n; n = bench_next(n, o.lat_step, o.lat_max)) {
    b.pingpong(n, BENCH_LAT_WARMUP);  // the first run pays for connection set-up
    double warm = b.pingpong(n, BENCH_LAT_WARMUP);
    int iters = b.agree(bench_calibrate(2e-6 * warm, o.quick, 0));
    for (int r = 0; r < o.reps; r++) v[r] = b.pingpong(n, iters);
    if (size_t bad = b.verify(n)) return wrong(bad, n);
    if (b.rank == 0) bench_report(o.label, "latency_us", n, v, o.reps, 0, iters);
  }
  for (size_t n = o.bw ? o.bw_min : 0; n; n = bench_next(n, o.bw_step, o.bw_max)) {
    int warm_windows = n * BENCH_WINDOW < (256u << 20) ? BENCH_BW_WARMUP : 1;
    b.stream(n, warm_windows);
    double warm = b.stream(n, warm_windows);
    int windows = b.agree(bench_calibrate(n * BENCH_WINDOW / (warm * 1e9), o.quick, 1));
    int reps = bench_bw_reps(n, &o);
    for (int r = 0; r < reps; r++) v[r] = b.stream(n, windows);
    if (size_t bad = b.verify(n)) return wrong(bad, n);
    if (b.rank == 0) bench_report(o.label, "bandwidth_GBps", n, v, reps, 1, windows);
  }
  free(b.sbuf);
  free(b.rbuf);
  rt.finalize();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2p_pingpong: %s\n", e.what());
    return 1;
  }
}
