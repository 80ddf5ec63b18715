// Recursive doubling allreduce: log2 n exchanges of the whole vector; lowest
// latency for small messages. Non-powers of two fold the extra ranks in first.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm allreduce_recursive_doubling() {
  return {Kind::allreduce, "recursive_doubling", [](const Args& a, Schedule& s) {
            const size_t es = a.esize, bytes = a.count * es;
            Fold f = fold(a.rank, a.size);
            Id last = s.copy(a.recvbuf, a.sendbuf, bytes);
            if (f.vr < 0) {  // folded out: hand over, get the result back
              s.send(a.rank + 1, a.recvbuf, bytes, {last});
              s.recv(a.rank + 1, a.recvbuf, bytes, {last});
              return;
            }
            if (a.rank < 2 * f.rem) last = s.recv_reduce(a.rank - 1, a.recvbuf, a.count, {last});
            std::byte* tmp = s.scratch(bytes);
            for (int mask = 1; mask < f.p2; mask <<= 1) {
              const int partner = f.real(f.vr ^ mask);
              Id snd = s.send(partner, a.recvbuf, bytes, {last});
              Id rcv = s.recv(partner, tmp, bytes, {last});
              last = s.combine(a.recvbuf, tmp, a.count, {snd, rcv});
            }
            if (a.rank < 2 * f.rem) s.send(a.rank - 1, a.recvbuf, bytes, {last});
          }, false, "log2(n) full exchanges; folds extra ranks (small messages)"};
}

}  // namespace interlace::coll::algo
