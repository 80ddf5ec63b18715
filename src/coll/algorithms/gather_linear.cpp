// Gather with every rank sending its block straight to the root.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm gather_linear() {
  return {Kind::gather, "linear", [](const Args& a, Schedule& s) {
            const size_t bb = a.count * a.esize;
            if (a.rank != a.root) {
              s.send(a.root, a.sendbuf, bb);
              return;
            }
            s.copy(at(a.recvbuf, a.root, bb), a.sendbuf, bb);
            for (int i = 0; i < a.size; ++i)
              if (i != a.root) s.recv(i, at(a.recvbuf, i, bb), bb);
          }, true, "every rank sends to the root"};
}

}  // namespace interlace::coll::algo
