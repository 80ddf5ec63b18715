// Ring allgatherv: as the ring allgather, with per-rank counts and displacements.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm allgatherv_ring() {
  return {Kind::allgatherv, "ring", [](const Args& a, Schedule& s) {
            const size_t es = a.esize;
            const int n = a.size, r = a.rank;
            auto blk = [&](int j) { return at(a.recvbuf, a.displs[j], es); };
            Id last = s.copy(blk(r), a.sendbuf, a.counts[r] * es);
            for (int t = 0; t < n - 1; ++t) {
              const int sb = mod(r - t, n), rb = mod(r - t - 1, n);
              Id snd = s.send(mod(r + 1, n), blk(sb), a.counts[sb] * es, {last});
              Id rcv = s.recv(mod(r - 1, n), blk(rb), a.counts[rb] * es, {last});
              last = s.join({snd, rcv});
            }
          }, true, "n-1 ring steps"};
}

}  // namespace interlace::coll::algo
