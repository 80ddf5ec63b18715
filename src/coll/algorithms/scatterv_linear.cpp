// Scatterv: the root sends counts[i] elements from displs[i] to each rank i.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm scatterv_linear() {
  return {Kind::scatterv, "linear", [](const Args& a, Schedule& s) {
            const size_t es = a.esize;
            if (a.rank != a.root) {
              s.recv(a.root, a.recvbuf, a.count * es);
              return;
            }
            for (int i = 1; i < a.size; ++i) {
              const int d = mod(a.root + i, a.size);
              s.send(d, at(a.sendbuf, a.displs[d], es), a.counts[d] * es);
            }
            s.copy(a.recvbuf, at(a.sendbuf, a.displs[a.root], es), a.counts[a.root] * es);
          }, true, "root sends each rank its part"};
}

}  // namespace interlace::coll::algo
