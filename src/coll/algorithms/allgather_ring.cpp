// Ring allgather: n-1 steps, each rank forwards the block it received last;
// bandwidth-optimal, latency linear in n.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm allgather_ring() {
  return {Kind::allgather, "ring", [](const Args& a, Schedule& s) {
            const size_t bb = a.count * a.esize;
            const int n = a.size, r = a.rank;
            Id last = s.copy(at(a.recvbuf, r, bb), a.sendbuf, bb);
            for (int t = 0; t < n - 1; ++t) {
              Id snd = s.send(mod(r + 1, n), at(a.recvbuf, mod(r - t, n), bb), bb, {last});
              Id rcv = s.recv(mod(r - 1, n), at(a.recvbuf, mod(r - t - 1, n), bb), bb, {last});
              last = s.join({snd, rcv});
            }
          }, true, "n-1 ring steps (large blocks)"};
}

}  // namespace interlace::coll::algo
