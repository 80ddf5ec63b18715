// Recursive-halving reduce-scatter: log2 n steps, halving the data each time. For
// n not a power of two the even ranks below 2*rem fold into their odd neighbour,
// which then owns both blocks and returns the even rank's block at the end.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm reduce_scatter_recursive_halving() {
  return {Kind::reduce_scatter, "recursive_halving", [](const Args& a, Schedule& s) {
            const size_t es = a.esize;
            const int n = a.size, r = a.rank;
            const size_t total = a.displs[n - 1] + a.counts[n - 1];
            Fold f = fold(r, n);
            std::byte* acc = s.scratch(total * es);
            Id last = s.copy(acc, a.sendbuf, total * es);
            if (f.vr < 0) {
              s.send(r + 1, acc, total * es, {last});
              s.recv(r + 1, a.recvbuf, a.counts[r] * es, {last});
              return;
            }
            if (r < 2 * f.rem) last = s.recv_reduce(r - 1, acc, total, {last});
            auto boundary = [&](int v) {
              const int b = v >= f.p2 ? n : f.first_block(v);
              return b >= n ? total : a.displs[b];
            };
            std::vector<std::pair<int, int>> kept, sent;
            last = halving(s, f, acc, boundary, last, &kept, &sent);
            if (r < 2 * f.rem) s.send(r - 1, at(acc, a.displs[r - 1], es), a.counts[r - 1] * es, {last});
            s.copy(a.recvbuf, at(acc, a.displs[r], es), a.counts[r] * es, {last});
          }, false, "log2(n) halving steps; folds extra ranks (small/medium vectors)"};
}

}  // namespace interlace::coll::algo
