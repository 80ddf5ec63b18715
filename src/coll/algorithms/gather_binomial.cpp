// Binomial gather: subtrees collect their blocks (ordered by relative rank) and
// pass them up in one message each; log2 n steps instead of n-1 at the root.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm gather_binomial() {
  return {Kind::gather, "binomial", [](const Args& a, Schedule& s) {
            const size_t bb = a.count * a.esize;
            const int n = a.size;
            Binomial b = binomial(a.rank, n, a.root);
            const bool direct = a.rank == a.root && a.root == 0;  // relative order = real order
            std::byte* tmp = direct ? static_cast<std::byte*>(a.recvbuf) : s.scratch(b.span * bb);
            std::vector<Id> got{s.copy(tmp, a.sendbuf, bb)};
            for (size_t i = 0; i < b.children.size(); ++i) {
              const int off = b.child_vr[i] - b.vr;
              const int cspan = std::min(off, n - b.child_vr[i]);
              got.push_back(s.recv(b.children[i], tmp + off * bb, cspan * bb));
            }
            Id all = s.join(got);
            if (b.parent >= 0) {
              s.send(b.parent, tmp, b.span * bb, {all});
            } else if (!direct) {  // rotate relative order back to ranks
              const int head = n - a.root;
              s.copy(at(a.recvbuf, a.root, bb), tmp, head * bb, {all});
              s.copy(a.recvbuf, tmp + head * bb, a.root * bb, {all});
            }
          }, true, "binomial tree (small blocks)"};
}

}  // namespace interlace::coll::algo
