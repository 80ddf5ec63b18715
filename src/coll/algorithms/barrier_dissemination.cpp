// Barrier by dissemination: ceil(log2 n) rounds, in round k every rank signals
// rank + 2^k and waits for rank - 2^k; works for any n without folding.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm barrier_dissemination() {
  return {Kind::barrier, "dissemination", [](const Args& a, Schedule& s) {
            Id prev = -1;
            for (int k = 1; k < a.size; k <<= 1) {
              s.send(mod(a.rank + k, a.size), nullptr, 0, {prev});
              prev = s.recv(mod(a.rank - k, a.size), nullptr, 0, {prev});
            }
          }, true, "log2(n) rounds of zero-byte signals (any n)"};
}

}  // namespace interlace::coll::algo
