// Pairwise alltoallv: step i exchanges with r+i / r-i using per-rank counts.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm alltoallv_pairwise() {
  return {Kind::alltoallv, "pairwise", [](const Args& a, Schedule& s) {
            const size_t es = a.esize;
            const int n = a.size, r = a.rank;
            Id last = s.copy(at(a.recvbuf, a.rdispls[r], es), at(a.sendbuf, a.displs[r], es), a.counts[r] * es);
            for (int i = 1; i < n; ++i) {
              const int to = mod(r + i, n), from = mod(r - i, n);
              Id snd = s.send(to, at(a.sendbuf, a.displs[to], es), a.counts[to] * es, {last});
              Id rcv = s.recv(from, at(a.recvbuf, a.rdispls[from], es), a.rcounts[from] * es, {last});
              last = s.join({snd, rcv});
            }
          }, true, "n-1 paired steps"};
}

}  // namespace interlace::coll::algo
