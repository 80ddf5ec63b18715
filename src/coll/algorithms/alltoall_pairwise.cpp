// Pairwise alltoall: in step i rank r sends to r+i and receives from r-i, one
// step at a time, so each link carries one transfer (large blocks).
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm alltoall_pairwise() {
  return {Kind::alltoall, "pairwise", [](const Args& a, Schedule& s) {
            const size_t bb = a.count * a.esize;
            const int n = a.size, r = a.rank;
            Id last = s.copy(at(a.recvbuf, r, bb), at(a.sendbuf, r, bb), bb);
            for (int i = 1; i < n; ++i) {
              const int to = mod(r + i, n), from = mod(r - i, n);
              Id snd = s.send(to, at(a.sendbuf, to, bb), bb, {last});
              Id rcv = s.recv(from, at(a.recvbuf, from, bb), bb, {last});
              last = s.join({snd, rcv});
            }
          }, true, "n-1 paired steps (large blocks)"};
}

}  // namespace interlace::coll::algo
