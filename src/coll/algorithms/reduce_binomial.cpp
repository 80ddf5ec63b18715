// Binomial-tree reduce, segmented so a parent combines and forwards segment i
// while its children still send later segments.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm reduce_binomial() {
  return {Kind::reduce, "binomial", [](const Args& a, Schedule& s) {
            const size_t es = a.esize;
            Binomial b = binomial(a.rank, a.size, a.root);
            void* acc = a.rank == a.root ? a.recvbuf : s.scratch(a.count * es);
            for (auto [off, len] : segments(a.count, es, a.segment_bytes)) {
              Id last = s.copy(at(acc, off, es), at(a.sendbuf, off, es), len * es);
              for (int c : b.children) last = s.recv_reduce(c, at(acc, off, es), len, {last});
              if (b.parent >= 0) s.send(b.parent, at(acc, off, es), len * es, {last});
            }
          }, false, "binomial tree, segmented and pipelined"};
}

}  // namespace interlace::coll::algo
