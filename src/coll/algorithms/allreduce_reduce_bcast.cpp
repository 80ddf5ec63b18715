// Allreduce as a rank-ordered linear reduce to rank 0 plus a binomial broadcast:
// slow, but the one allreduce that honours non-commutative operators.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm allreduce_reduce_bcast() {
  return {Kind::allreduce, "reduce_bcast", [](const Args& a, Schedule& s) {
            void* acc = a.recvbuf;
            const void* in = a.sendbuf;
            Id r = linear_reduce(s, a.rank, a.size, 0, in, acc, a.count, -1);
            binomial_bcast(s, a.rank, a.size, 0, acc, a.count * a.esize, a.segment_bytes, r);
          }, true, "linear reduce to rank 0 + binomial bcast; rank-ordered (non-commutative ops)"};
}

}  // namespace interlace::coll::algo
