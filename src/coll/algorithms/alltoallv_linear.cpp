// Linear alltoallv: every transfer posted at once.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm alltoallv_linear() {
  return {Kind::alltoallv, "linear", [](const Args& a, Schedule& s) {
            const size_t es = a.esize;
            const int n = a.size, r = a.rank;
            s.copy(at(a.recvbuf, a.rdispls[r], es), at(a.sendbuf, a.displs[r], es), a.counts[r] * es);
            for (int i = 1; i < n; ++i) {
              const int to = mod(r + i, n), from = mod(r - i, n);
              s.send(to, at(a.sendbuf, a.displs[to], es), a.counts[to] * es);
              s.recv(from, at(a.recvbuf, a.rdispls[from], es), a.rcounts[from] * es);
            }
          }, true, "all transfers posted at once"};
}

}  // namespace interlace::coll::algo
