// Scatter with the root sending each rank its block directly.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm scatter_linear() {
  return {Kind::scatter, "linear", [](const Args& a, Schedule& s) {
            const size_t bb = a.count * a.esize;
            if (a.rank != a.root) {
              s.recv(a.root, a.recvbuf, bb);
              return;
            }
            for (int i = 1; i < a.size; ++i) {
              const int d = mod(a.root + i, a.size);
              s.send(d, at(a.sendbuf, d, bb), bb);
            }
            s.copy(a.recvbuf, at(a.sendbuf, a.root, bb), bb);
          }, true, "root sends each rank its block"};
}

}  // namespace interlace::coll::algo
