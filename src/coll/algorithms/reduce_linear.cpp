// Reduce with every rank sending to the root, which combines in rank order: the
// only reduce that honours non-commutative operators for any root.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm reduce_linear() {
  return {Kind::reduce, "linear", [](const Args& a, Schedule& s) {
            linear_reduce(s, a.rank, a.size, a.root, a.sendbuf, a.recvbuf, a.count, -1);
          }, true, "every rank sends to the root; rank-ordered (non-commutative ops)"};
}

}  // namespace interlace::coll::algo
