// Bruck alltoall: ceil(log2 n) steps for any n. Blocks sit rotated so slot j holds
// the block for distance j; in round k every slot with bit k set moves k ranks on
// (packed into one message). Trades extra copies for fewer messages: small blocks.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm alltoall_bruck() {
  return {Kind::alltoall, "bruck", [](const Args& a, Schedule& s) {
            const size_t bb = a.count * a.esize;
            const int n = a.size, r = a.rank;
            std::byte* tmp = s.scratch(n * bb);
            const int head = n - r;  // slot j = block for rank r + j
            Id c1 = s.copy(tmp, at(a.sendbuf, r, bb), head * bb);
            Id c2 = s.copy(tmp + head * bb, a.sendbuf, r * bb);
            Id last = s.join({c1, c2});
            for (int k = 1; k < n; k <<= 1) {
              std::vector<int> slots;
              for (int j = 1; j < n; ++j)
                if (j & k) slots.push_back(j);
              std::byte* out = s.scratch(slots.size() * bb);
              std::byte* in = s.scratch(slots.size() * bb);
              std::vector<Id> packed;
              for (size_t i = 0; i < slots.size(); ++i)
                packed.push_back(s.copy(out + i * bb, tmp + slots[i] * bb, bb, {last}));
              Id snd = s.send(mod(r + k, n), out, slots.size() * bb, {s.join(packed)});
              Id rcv = s.recv(mod(r - k, n), in, slots.size() * bb, {last});
              std::vector<Id> unpacked{snd};
              Id ready = s.join({rcv, s.join(packed)});
              for (size_t i = 0; i < slots.size(); ++i)
                unpacked.push_back(s.copy(tmp + slots[i] * bb, in + i * bb, bb, {ready}));
              last = s.join(unpacked);
            }
            // Slot j now holds the block from rank r - j.
            for (int j = 0; j < n; ++j) s.copy(at(a.recvbuf, mod(r - j, n), bb), tmp + j * bb, bb, {last});
          }, true, "ceil(log2 n) packed steps for any n (small blocks)"};
}

}  // namespace interlace::coll::algo
