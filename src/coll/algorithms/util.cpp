// Shared sub-schedules: binomial trees, linear reduction, power-of-two folding.
#include "coll/algorithms/util.hpp"

namespace interlace::coll::algo {

Binomial binomial(int rank, int size, int root) {
  Binomial b;
  b.vr = mod(rank - root, size);
  int mask = 1;
  for (; mask < size; mask <<= 1) {
    if (b.vr & mask) {
      b.parent = mod(b.vr - mask + root, size);
      break;
    }
    if (b.vr + mask < size) {
      b.child_vr.push_back(b.vr + mask);
      b.children.push_back(mod(b.vr + mask + root, size));
    }
  }
  b.span = std::min(mask, size - b.vr);
  return b;
}

Id binomial_bcast(Schedule& s, int rank, int size, int root, void* buf, size_t bytes, size_t seg, Id after) {
  Binomial b = binomial(rank, size, root);
  std::vector<Id> all{after};
  for (auto [off, len] : segments(bytes, 1, seg)) {
    Id have = after;
    if (b.parent >= 0) have = s.recv(b.parent, at(buf, off, 1), len, {after});
    all.push_back(have);
    // Largest subtree first: it has the longest way to go.
    for (size_t i = b.children.size(); i-- > 0;)
      all.push_back(s.send(b.children[i], at(buf, off, 1), len, {have}));
  }
  return s.join(all);
}

Id linear_reduce(Schedule& s, int rank, int size, int root, const void* sendbuf, void* acc, size_t count,
                 Id after) {
  const size_t es = s.esize();
  if (rank != root) return s.send(root, sendbuf, count * es, {after});
  // acc = x0 ∘ x1 ∘ ... in rank order, so non-commutative ops are honoured.
  Id last = root == 0 ? s.copy(acc, sendbuf, count * es, {after}) : s.recv(0, acc, count * es, {after});
  for (int i = 1; i < size; ++i)
    last = i == root ? s.combine(acc, sendbuf, count, {last}) : s.recv_reduce(i, acc, count, {last});
  return last;
}

Fold fold(int rank, int size) {
  Fold f;
  f.p2 = pow2_floor(size);
  f.rem = size - f.p2;
  if (rank < 2 * f.rem) f.vr = (rank % 2) ? rank / 2 : -1;
  else f.vr = rank - f.rem;
  return f;
}

}  // namespace interlace::coll::algo
