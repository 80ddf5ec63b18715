// Reduce-scatter as a rank-ordered linear reduce to rank 0 and a linear scatterv:
// the reduce-scatter that honours non-commutative operators.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm reduce_scatter_reduce_scatterv() {
  return {Kind::reduce_scatter, "reduce_scatterv", [](const Args& a, Schedule& s) {
            const size_t es = a.esize;
            const int n = a.size;
            const size_t total = a.displs[n - 1] + a.counts[n - 1];
            std::byte* acc = a.rank == 0 ? s.scratch(total * es) : nullptr;
            Id red = linear_reduce(s, a.rank, n, 0, a.sendbuf, acc, total, -1);
            if (a.rank != 0) {
              s.recv(0, a.recvbuf, a.counts[a.rank] * es, {red});
              return;
            }
            for (int i = 1; i < n; ++i) s.send(i, at(acc, a.displs[i], es), a.counts[i] * es, {red});
            s.copy(a.recvbuf, acc, a.counts[0] * es, {red});
          }, true, "linear reduce + scatterv; rank-ordered (non-commutative ops)"};
}

}  // namespace interlace::coll::algo
