// Exclusive scan as a chain: rank r receives the prefix of ranks 0..r-1 (its
// result) and forwards prefix ∘ own. Rank 0's receive buffer is left untouched.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm exscan_linear() {
  return {Kind::exscan, "linear", [](const Args& a, Schedule& s) {
            const size_t bytes = a.count * a.esize;
            const bool last_rank = a.rank + 1 == a.size;
            if (a.rank == 0) {
              if (!last_rank) s.send(1, a.sendbuf, bytes);
              return;
            }
            Id got = s.recv(a.rank - 1, a.recvbuf, bytes);
            if (last_rank) return;
            std::byte* next = s.scratch(bytes);
            Id c = s.copy(next, a.sendbuf, bytes);
            Id comb = s.combine(next, a.recvbuf, a.count, {got, c}, true);
            s.send(a.rank + 1, next, bytes, {comb});
          }, true, "chain through the ranks; rank-ordered (non-commutative ops)"};
}

}  // namespace interlace::coll::algo
