// Alltoall posting every send and receive at once: fewest steps, but all n-1
// transfers compete for the links; good for small blocks.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm alltoall_linear() {
  return {Kind::alltoall, "linear", [](const Args& a, Schedule& s) {
            const size_t bb = a.count * a.esize;
            const int n = a.size, r = a.rank;
            s.copy(at(a.recvbuf, r, bb), at(a.sendbuf, r, bb), bb);
            for (int i = 1; i < n; ++i) {
              const int to = mod(r + i, n), from = mod(r - i, n);
              s.send(to, at(a.sendbuf, to, bb), bb);
              s.recv(from, at(a.recvbuf, from, bb), bb);
            }
          }, true, "all transfers posted at once (small blocks)"};
}

}  // namespace interlace::coll::algo
