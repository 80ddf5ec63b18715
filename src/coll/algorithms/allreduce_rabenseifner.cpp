// Rabenseifner allreduce: recursive-halving reduce-scatter, then recursive-doubling
// allgather; log2 n steps like recursive doubling but only ~2x the data per link.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm allreduce_rabenseifner() {
  return {Kind::allreduce, "rabenseifner", [](const Args& a, Schedule& s) {
            const size_t es = a.esize, bytes = a.count * es;
            Fold f = fold(a.rank, a.size);
            void* acc = a.recvbuf;
            Id last = s.copy(acc, a.sendbuf, bytes);
            if (f.vr < 0) {
              s.send(a.rank + 1, acc, bytes, {last});
              s.recv(a.rank + 1, acc, bytes, {last});
              return;
            }
            if (a.rank < 2 * f.rem) last = s.recv_reduce(a.rank - 1, acc, a.count, {last});
            auto boundary = [&](int v) { return part_offset(a.count, f.p2, v); };
            std::vector<std::pair<int, int>> kept, sent;
            last = halving(s, f, acc, boundary, last, &kept, &sent);
            // Doubling in reverse: I hold `kept`, the partner holds what I sent it.
            for (size_t i = kept.size(); i-- > 0;) {
              const int mask = f.p2 >> (i + 1);
              const int partner = f.real(f.vr ^ mask);
              const size_t ko = boundary(kept[i].first), kn = boundary(kept[i].second) - ko;
              const size_t so = boundary(sent[i].first), sn = boundary(sent[i].second) - so;
              Id snd = s.send(partner, at(acc, ko, es), kn * es, {last});
              Id rcv = s.recv(partner, at(acc, so, es), sn * es, {last});
              last = s.join({snd, rcv});
            }
            if (a.rank < 2 * f.rem) s.send(a.rank - 1, acc, bytes, {last});
          }, false, "recursive halving + recursive doubling (medium/large messages)"};
}

}  // namespace interlace::coll::algo
