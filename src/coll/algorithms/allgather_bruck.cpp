// Bruck allgather: ceil(log2 n) steps for any n; blocks accumulate rotated (own
// block first) and one final local rotation puts them in rank order.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm allgather_bruck() {
  return {Kind::allgather, "bruck", [](const Args& a, Schedule& s) {
            const size_t bb = a.count * a.esize;
            const int n = a.size, r = a.rank;
            std::byte* tmp = s.scratch(n * bb);
            Id last = s.copy(tmp, a.sendbuf, bb);
            for (int k = 1; k < n; k <<= 1) {
              const int cnt = std::min(k, n - k);
              Id snd = s.send(mod(r - k, n), tmp, cnt * bb, {last});
              Id rcv = s.recv(mod(r + k, n), tmp + k * bb, cnt * bb, {last});
              last = s.join({snd, rcv});
            }
            // tmp[j] is rank (r + j)'s block.
            const int head = n - r;
            s.copy(at(a.recvbuf, r, bb), tmp, head * bb, {last});
            s.copy(a.recvbuf, tmp + head * bb, r * bb, {last});
          }, true, "ceil(log2 n) steps for any n (small blocks)"};
}

}  // namespace interlace::coll::algo
