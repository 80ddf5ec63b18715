// Gatherv: every rank sends its counts[rank] elements to the root, which places
// them at displs. (Counts are significant only at the root, so no rank but the
// root could pick a size-dependent algorithm consistently.)
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm gatherv_linear() {
  return {Kind::gatherv, "linear", [](const Args& a, Schedule& s) {
            const size_t es = a.esize;
            if (a.rank != a.root) {
              s.send(a.root, a.sendbuf, a.count * es);
              return;
            }
            s.copy(at(a.recvbuf, a.displs[a.root], es), a.sendbuf, a.counts[a.root] * es);
            for (int i = 0; i < a.size; ++i)
              if (i != a.root) s.recv(i, at(a.recvbuf, a.displs[i], es), a.counts[i] * es);
          }, true, "every rank sends to the root"};
}

}  // namespace interlace::coll::algo
