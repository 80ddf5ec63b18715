// Ring reduce-scatter: n-1 steps, each rank adds its part of the block passing by;
// bandwidth-optimal for large vectors. Works on a copy of the input.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm reduce_scatter_ring() {
  return {Kind::reduce_scatter, "ring", [](const Args& a, Schedule& s) {
            const size_t es = a.esize;
            const int n = a.size, r = a.rank;
            const size_t total = a.displs[n - 1] + a.counts[n - 1];
            std::byte* acc = s.scratch(total * es);
            Id last = s.copy(acc, a.sendbuf, total * es);
            for (int t = 0; t < n - 1; ++t) {
              const int sb = mod(r - t - 1, n), rb = mod(r - t - 2, n);
              s.send(mod(r + 1, n), at(acc, a.displs[sb], es), a.counts[sb] * es, {last});
              last = s.recv_reduce(mod(r - 1, n), at(acc, a.displs[rb], es), a.counts[rb], {last});
            }
            s.copy(a.recvbuf, at(acc, a.displs[r], es), a.counts[r] * es, {last});
          }, false, "n-1 ring steps (large vectors)"};
}

}  // namespace interlace::coll::algo
