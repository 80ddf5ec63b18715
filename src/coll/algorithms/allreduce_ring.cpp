// Ring allreduce: a ring reduce-scatter then a ring allgather, each over n blocks;
// 2(n-1)/n of the vector per link, the bandwidth-optimal choice for large data.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm allreduce_ring() {
  return {Kind::allreduce, "ring", [](const Args& a, Schedule& s) {
            const size_t es = a.esize;
            const int n = a.size, r = a.rank;
            void* acc = a.recvbuf;
            Id last = s.copy(acc, a.sendbuf, a.count * es);
            auto off = [&](int j) { return part_offset(a.count, n, j); };
            auto len = [&](int j) { return off(j + 1) - off(j); };
            const int next = mod(r + 1, n), prev = mod(r - 1, n);
            std::vector<Id> rs_send(n, -1);
            // Reduce-scatter: after n-1 steps rank r holds block r fully reduced.
            for (int t = 0; t < n - 1; ++t) {
              const int sb = mod(r - t - 1, n), rb = mod(r - t - 2, n);
              rs_send[t] = s.send(next, at(acc, off(sb), es), len(sb) * es, {last});
              last = s.recv_reduce(prev, at(acc, off(rb), es), len(rb), {last});
            }
            // Allgather: pass the reduced blocks around; a block is overwritten only
            // after its reduce-scatter send has finished.
            for (int t = 0; t < n - 1; ++t) {
              const int sb = mod(r - t, n), rb = mod(r - t - 1, n);
              Id snd = s.send(next, at(acc, off(sb), es), len(sb) * es, {last});
              Id rcv = s.recv(prev, at(acc, off(rb), es), len(rb) * es, {last, rs_send[t]});
              last = s.join({snd, rcv});
            }
          }, false, "ring reduce-scatter + ring allgather (large messages)"};
}

}  // namespace interlace::coll::algo
