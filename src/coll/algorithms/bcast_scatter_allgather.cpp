// Broadcast for large messages (van de Geijn): binomial scatter of n blocks, then
// a ring allgather; each link carries about 2x the message instead of log2 n x.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm bcast_scatter_allgather() {
  return {Kind::bcast, "scatter_allgather", [](const Args& a, Schedule& s) {
            const int n = a.size;
            const size_t bytes = a.count * a.esize;
            // Blocks are indexed by relative rank; block j's bytes start at off(j).
            auto off = [&](int j) { return part_offset(a.count, n, j) * a.esize; };
            void* buf = a.recvbuf;
            Binomial b = binomial(a.rank, n, a.root);
            std::vector<Id> scat;
            Id have = -1;
            if (b.parent >= 0)
              have = s.recv(b.parent, at(buf, off(b.vr), 1), off(b.vr + b.span) - off(b.vr));
            scat.push_back(have);
            for (size_t i = b.children.size(); i-- > 0;) {
              const int cv = b.child_vr[i];
              const int cspan = std::min(cv - b.vr, n - cv);
              scat.push_back(s.send(b.children[i], at(buf, off(cv), 1), off(cv + cspan) - off(cv), {have}));
            }
            Id prev = s.join(scat);
            const int next = mod(a.rank + 1, n), prv = mod(a.rank - 1, n);
            Id after_scatter = prev;
            for (int t = 0; t < n - 1; ++t) {
              const int sb = mod(b.vr - t, n), rb = mod(b.vr - t - 1, n);
              Id snd = s.send(next, at(buf, off(sb), 1), off(sb + 1) - off(sb), {prev});
              Id rcv = s.recv(prv, at(buf, off(rb), 1), off(rb + 1) - off(rb), {after_scatter});
              prev = s.join({snd, rcv});
            }
            (void)bytes;
          }, true, "binomial scatter + ring allgather (large messages)"};
}

}  // namespace interlace::coll::algo
