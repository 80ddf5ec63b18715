// Inclusive scan as a chain: rank r waits for the prefix of ranks 0..r-1, adds its
// own data on the right (rank order kept) and passes the result on.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm scan_linear() {
  return {Kind::scan, "linear", [](const Args& a, Schedule& s) {
            const size_t bytes = a.count * a.esize;
            Id last = s.copy(a.recvbuf, a.sendbuf, bytes);
            if (a.rank > 0) last = s.recv_reduce(a.rank - 1, a.recvbuf, a.count, {last}, true);
            if (a.rank + 1 < a.size) s.send(a.rank + 1, a.recvbuf, bytes, {last});
          }, true, "chain through the ranks; rank-ordered (non-commutative ops)"};
}

}  // namespace interlace::coll::algo
