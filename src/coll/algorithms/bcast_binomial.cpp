// Binomial-tree broadcast, segmented so that inner nodes forward segment i while
// segment i+1 is still arriving (pipelining for large messages).
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm bcast_binomial() {
  return {Kind::bcast, "binomial", [](const Args& a, Schedule& s) {
            binomial_bcast(s, a.rank, a.size, a.root, a.recvbuf, a.count * a.esize, a.segment_bytes, -1);
          }, true, "binomial tree, segmented and pipelined"};
}

}  // namespace interlace::coll::algo
