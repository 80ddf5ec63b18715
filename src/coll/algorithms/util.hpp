// Internal helpers shared by the algorithm files: pointer arithmetic in elements,
// tree shapes, block partitions, and sub-schedules that several algorithms reuse.
#pragma once
#include <cstddef>
#include <vector>

#include "interlace/coll/schedule.hpp"

namespace interlace::coll::algo {

using Id = Schedule::Id;

inline std::byte* at(void* base, size_t elems, size_t esize) {
  return static_cast<std::byte*>(base) + elems * esize;
}
inline const std::byte* at(const void* base, size_t elems, size_t esize) {
  return static_cast<const std::byte*>(base) + elems * esize;
}
inline int pow2_floor(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}
inline int mod(int a, int n) { return ((a % n) + n) % n; }

// Balanced split of count elements into parts: offset of part i (i <= parts).
inline size_t part_offset(size_t count, int parts, int i) {
  const size_t q = count / parts, r = count % parts;
  return q * i + std::min<size_t>(i, r);
}

// Binomial tree over ranks relative to root: parent (-1 at root) and children
// (increasing subtree size), as real ranks; `span` = ranks in my subtree.
struct Binomial {
  int parent = -1;
  std::vector<int> children;      // real ranks
  std::vector<int> child_vr;      // their relative ranks
  int vr = 0, span = 1;
};
Binomial binomial(int rank, int size, int root);

// Each returns the id of a join step that finishes when its part is done.
// Binomial broadcast of bytes (segmented, pipelined) after `after`.
Id binomial_bcast(Schedule& s, int rank, int size, int root, void* buf, size_t bytes, size_t seg, Id after);
// Rank-ordered linear reduction of sendbuf into acc at root (acc unused elsewhere).
Id linear_reduce(Schedule& s, int rank, int size, int root, const void* sendbuf, void* acc, size_t count, Id after);

// Power-of-two folding used by recursive doubling/halving on any size: ranks below
// 2*rem pair up; the even one hands its data to the odd one and sits out.
struct Fold {
  int p2 = 1, rem = 0;
  int vr = -1;                   // virtual rank in the power-of-two group, -1 if folded out
  int real(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
  int first_block(int v) const { return v < rem ? 2 * v : v + rem; }  // real blocks of v start here
};
Fold fold(int rank, int size);

// Recursive halving reduce-scatter on acc among the virtual ranks; boundary(v) is
// the element offset where virtual rank v's blocks start (boundary(p2) = end).
// Returns the last step; windows[i] = {lo, hi} virtual ranges kept per round.
template <class Boundary>
Id halving(Schedule& s, const Fold& f, void* acc, const Boundary& boundary, Id after,
           std::vector<std::pair<int, int>>* kept, std::vector<std::pair<int, int>>* sent) {
  const size_t es = s.esize();
  int lo = 0, hi = f.p2;
  Id last = after;
  for (int mask = f.p2 / 2; mask >= 1; mask /= 2) {
    const int partner = f.real(f.vr ^ mask);
    const int mid = lo + (hi - lo) / 2;
    int klo = lo, khi = mid, slo = mid, shi = hi;
    if (f.vr & mask) { klo = mid; khi = hi; slo = lo; shi = mid; }
    const size_t so = boundary(slo), sn = boundary(shi) - so;
    const size_t ko = boundary(klo), kn = boundary(khi) - ko;
    Id snd = s.send(partner, at(acc, so, es), sn * es, {last});
    Id rcv = s.recv_reduce(partner, at(acc, ko, es), kn, {last});
    last = s.join({snd, rcv});
    kept->emplace_back(klo, khi);
    sent->emplace_back(slo, shi);
    lo = klo;
    hi = khi;
  }
  return last;
}

}  // namespace interlace::coll::algo
