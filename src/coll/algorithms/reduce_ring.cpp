// Pipelined chain reduce: segments flow root+1 -> root+2 -> ... -> root, each rank
// adding its contribution; bandwidth-optimal for large messages (one send and one
// receive per rank per byte), latency grows with n.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm reduce_ring() {
  return {Kind::reduce, "ring", [](const Args& a, Schedule& s) {
            const size_t es = a.esize;
            const int n = a.size;
            const int pos = mod(a.rank - a.root - 1, n);  // 0 starts the chain, n-1 is the root
            const int next = mod(a.rank + 1, n), prev = mod(a.rank - 1, n);
            if (n == 1) {
              s.copy(a.recvbuf, a.sendbuf, a.count * es);
              return;
            }
            void* acc = a.rank == a.root ? a.recvbuf : (pos == 0 ? nullptr : s.scratch(a.count * es));
            for (auto [off, len] : segments(a.count, es, a.segment_bytes)) {
              if (pos == 0) {
                s.send(next, at(a.sendbuf, off, es), len * es);
                continue;
              }
              Id c = s.copy(at(acc, off, es), at(a.sendbuf, off, es), len * es);
              Id r = s.recv_reduce(prev, at(acc, off, es), len, {c});
              if (pos < n - 1) s.send(next, at(acc, off, es), len * es, {r});
            }
          }, false, "pipelined chain ending at the root (large messages)"};
}

}  // namespace interlace::coll::algo
