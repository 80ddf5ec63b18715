// Recursive doubling allgather: log2 n exchanges of doubling size. For n not a
// power of two, rank p2+i first hands its block to rank i and gets the full
// result back at the end; virtual rank v then owns blocks v and v+p2.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm allgather_recursive_doubling() {
  return {Kind::allgather, "recursive_doubling", [](const Args& a, Schedule& s) {
            const size_t bb = a.count * a.esize;
            const int n = a.size, r = a.rank, p2 = pow2_floor(n), extra = n - p2;
            Id last = s.copy(at(a.recvbuf, r, bb), a.sendbuf, bb);
            if (r >= p2) {
              s.send(r - p2, a.sendbuf, bb);
              s.recv(r - p2, a.recvbuf, n * bb, {last});
              return;
            }
            if (r < extra) last = s.recv(r + p2, at(a.recvbuf, r + p2, bb), bb, {last});
            // Units [lo, lo+len) of the power-of-two group: blocks lo.. and lo+p2.. (if any).
            auto xfer = [&](bool send, int peer, int lo, int len, Id dep) {
              std::vector<Id> ids;
              auto one = [&](int first, int cnt) {
                if (cnt <= 0) return;
                ids.push_back(send ? s.send(peer, at(a.recvbuf, first, bb), cnt * bb, {dep})
                                   : s.recv(peer, at(a.recvbuf, first, bb), cnt * bb, {dep}));
              };
              one(lo, len);
              one(lo + p2, std::min(lo + len, extra) - lo);
              return s.join(ids);
            };
            for (int mask = 1; mask < p2; mask <<= 1) {
              const int partner = r ^ mask;
              const int mine = r & ~(mask - 1), theirs = partner & ~(mask - 1);
              Id snd = xfer(true, partner, mine, mask, last);
              Id rcv = xfer(false, partner, theirs, mask, last);
              last = s.join({snd, rcv});
            }
            if (r < extra) s.send(r + p2, a.recvbuf, n * bb, {last});
          }, true, "log2(n) doubling exchanges; folds extra ranks (small blocks)"};
}

}  // namespace interlace::coll::algo
