// Broadcast with the root sending the whole buffer to every rank: one step of
// latency, best for tiny messages on small communicators.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm bcast_linear() {
  return {Kind::bcast, "linear", [](const Args& a, Schedule& s) {
            const size_t bytes = a.count * a.esize;
            if (a.rank != a.root) {
              s.recv(a.root, a.recvbuf, bytes);
              return;
            }
            for (int i = 1; i < a.size; ++i) s.send(mod(a.root + i, a.size), a.recvbuf, bytes);
          }, true, "root sends to every rank"};
}

}  // namespace interlace::coll::algo
