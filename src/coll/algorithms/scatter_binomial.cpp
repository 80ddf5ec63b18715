// Binomial scatter: each subtree receives all its blocks in one message and
// splits them further; log2 n steps from the root.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Algorithm scatter_binomial() {
  return {Kind::scatter, "binomial", [](const Args& a, Schedule& s) {
            const size_t bb = a.count * a.esize;
            const int n = a.size;
            Binomial b = binomial(a.rank, n, a.root);
            const std::byte* tmp;
            Id have = -1;
            if (b.parent >= 0) {
              std::byte* t = s.scratch(b.span * bb);
              have = s.recv(b.parent, t, b.span * bb);
              tmp = t;
            } else if (a.root == 0) {
              tmp = static_cast<const std::byte*>(a.sendbuf);
            } else {  // relative order: blocks root.., then 0..root-1
              std::byte* t = s.scratch(n * bb);
              const int head = n - a.root;
              Id c1 = s.copy(t, at(a.sendbuf, a.root, bb), head * bb);
              Id c2 = s.copy(t + head * bb, a.sendbuf, a.root * bb);
              have = s.join({c1, c2});
              tmp = t;
            }
            for (size_t i = b.children.size(); i-- > 0;) {
              const int off = b.child_vr[i] - b.vr;
              const int cspan = std::min(off, n - b.child_vr[i]);
              s.send(b.children[i], tmp + off * bb, cspan * bb, {have});
            }
            s.copy(a.recvbuf, tmp, bb, {have});
          }, true, "binomial tree (small blocks)"};
}

}  // namespace interlace::coll::algo
