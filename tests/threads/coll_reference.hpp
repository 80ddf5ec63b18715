// Shared by the coll_*_test.cpp suites: deterministic per-rank inputs and a serial
// reference (rank-ordered fold with the core reduce()).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/core/datatype.hpp"

namespace colltest {

using namespace interlace;

// Small integers are exact in every datatype (sums of 8 ranks included).
inline void put(Datatype dt, void* p, size_t i, int v) {
  switch (dt) {
    case Datatype::bytes: case Datatype::uint8: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); break;
    case Datatype::int8: static_cast<int8_t*>(p)[i] = static_cast<int8_t>(v); break;
    case Datatype::int16: static_cast<int16_t*>(p)[i] = static_cast<int16_t>(v); break;
    case Datatype::uint16: static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v); break;
    case Datatype::int32: static_cast<int32_t*>(p)[i] = v; break;
    case Datatype::uint32: static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v); break;
    case Datatype::int64: static_cast<int64_t*>(p)[i] = v; break;
    case Datatype::uint64: static_cast<uint64_t*>(p)[i] = static_cast<uint64_t>(v); break;
    case Datatype::float16: static_cast<uint16_t*>(p)[i] = float_to_half(static_cast<float>(v)); break;
    case Datatype::bfloat16: static_cast<uint16_t*>(p)[i] = float_to_bfloat16(static_cast<float>(v)); break;
    case Datatype::float32: static_cast<float*>(p)[i] = static_cast<float>(v); break;
    case Datatype::float64: static_cast<double*>(p)[i] = v; break;
  }
}

// Input element i of `rank` (a fresh stream per seed).
inline int value(int rank, size_t i, int seed, bool for_prod) {
  const uint32_t h = static_cast<uint32_t>(rank * 7919 + i * 104729 + seed * 31337);
  return for_prod ? static_cast<int>(1 + (h >> 7) % 2) : static_cast<int>((h >> 5) % 11) - 5;
}

inline std::vector<std::byte> input(Datatype dt, int rank, size_t count, int seed, bool prod = false) {
  std::vector<std::byte> v(count * datatype_size(dt) + 1);
  for (size_t i = 0; i < count; ++i) put(dt, v.data(), i, value(rank, i, seed, prod));
  v.resize(count * datatype_size(dt));
  return v;
}

// x_lo ∘ ... ∘ x_hi-1 over the ranks' inputs.
inline std::vector<std::byte> fold(Datatype dt, const coll::Op& op, int lo, int hi, size_t count, int seed,
                                   bool prod = false) {
  std::vector<std::byte> acc = input(dt, lo, count, seed, prod);
  for (int r = lo + 1; r < hi; ++r) {
    std::vector<std::byte> x = input(dt, r, count, seed, prod);
    op.apply_left(acc.data(), x.data(), count, dt);
  }
  return acc;
}

// Non-commutative, associative: 2x2 matrix product mod 2^32 over groups of 4 uint32.
inline coll::Op matmul_op() {
  return coll::Op(
      [](const void* in, void* inout, size_t count, Datatype) {
        const auto* a = static_cast<const uint32_t*>(in);
        auto* b = static_cast<uint32_t*>(inout);
        for (size_t k = 0; k + 3 < count; k += 4) {
          const uint32_t r0 = a[k] * b[k] + a[k + 1] * b[k + 2], r1 = a[k] * b[k + 1] + a[k + 1] * b[k + 3];
          const uint32_t r2 = a[k + 2] * b[k] + a[k + 3] * b[k + 2], r3 = a[k + 2] * b[k + 1] + a[k + 3] * b[k + 3];
          b[k] = r0; b[k + 1] = r1; b[k + 2] = r2; b[k + 3] = r3;
        }
      },
      false, "matmul");
}

using Bytes = std::vector<std::byte>;
using coll::Kind;

inline std::string label(Kind k, const std::string& alg, Datatype dt, const coll::Op& op, size_t count, int n) {
  return std::string(coll::kind_name(k)) + "/" + alg + " " + std::string(datatype_name(dt)) + " " + op.name() +
         " count " + std::to_string(count) + " n " + std::to_string(n);
}

inline Bytes slice(const Bytes& b, size_t off, size_t len) { return Bytes(b.begin() + off, b.begin() + off + len); }

// Runs collective k with algorithm alg on w; "" if this rank's result is right, else what failed.
inline std::string check(const Communicator& w, Kind k, const std::string& alg, Datatype dt, const coll::Op& op, size_t count,
           int seed, bool in_place = false) {
  const int n = w.size(), r = w.rank();
  const size_t es = datatype_size(dt);
  const bool prod = op.is_builtin() && op.builtin() == ReduceOp::prod;
  coll::Options o{alg};
  const std::string what = label(k, alg, dt, op, count, n) + " rank " + std::to_string(r) +
                           (in_place ? " in place" : "");
  const int root = n > 1 ? (seed % n) : 0;
  Bytes mine = input(dt, r, count, seed, prod);
  switch (k) {
    case Kind::barrier:
      coll::barrier(w, o);
      return {};
    case Kind::bcast: {
      Bytes buf = r == root ? mine : Bytes(count * es);
      coll::bcast(w, buf.data(), count, dt, root, o);
      if (!(buf == input(dt, root, count, seed))) return what;
      return {};
    }
    case Kind::reduce: case Kind::allreduce: case Kind::scan: case Kind::exscan: {
      Bytes out(count * es);
      const void* s = mine.data();
      if (in_place && (k != Kind::reduce || r == root)) {
        out = mine;
        s = coll::IN_PLACE;
      }
      if (k == Kind::reduce) coll::reduce(w, s, out.data(), count, dt, op, root, o);
      if (k == Kind::allreduce) coll::allreduce(w, s, out.data(), count, dt, op, o);
      if (k == Kind::scan) coll::scan(w, s, out.data(), count, dt, op, o);
      if (k == Kind::exscan) coll::exscan(w, s, out.data(), count, dt, op, o);
      if (k == Kind::reduce && r != root) return {};
      if (k == Kind::exscan && r == 0) return {};
      const int hi = k == Kind::scan ? r + 1 : k == Kind::exscan ? r : n;
      if (!(out == fold(dt, op, 0, hi, count, seed, prod))) return what;
      return {};
    }
    case Kind::gather: case Kind::allgather: {
      Bytes out(n * count * es);
      const void* s = mine.data();
      if (in_place && (k == Kind::allgather || r == root)) {
        if (count) std::memcpy(out.data() + r * count * es, mine.data(), count * es);
        s = coll::IN_PLACE;
      }
      if (k == Kind::gather) coll::gather(w, s, out.data(), count, dt, root, o);
      else coll::allgather(w, s, out.data(), count, dt, o);
      if (k == Kind::gather && r != root) return {};
      for (int i = 0; i < n; ++i) if (!(slice(out, i * count * es, count * es) == input(dt, i, count, seed))) return what;
      return {};
    }
    case Kind::scatter: {
      Bytes all = input(dt, root, n * count, seed);
      Bytes out(count * es);
      if (in_place && r == root) coll::scatter(w, all.data(), coll::IN_PLACE, count, dt, root, o);
      else coll::scatter(w, r == root ? all.data() : nullptr, out.data(), count, dt, root, o);
      if (in_place && r == root) return {};
      if (!(out == slice(all, r * count * es, count * es))) return what;
      return {};
    }
    case Kind::alltoall: {
      Bytes in = input(dt, r, n * count, seed), out(n * count * es);
      if (in_place) {
        out = in;
        coll::alltoall(w, coll::IN_PLACE, out.data(), count, dt, o);
      } else {
        coll::alltoall(w, in.data(), out.data(), count, dt, o);
      }
      for (int i = 0; i < n; ++i)
        if (!(slice(out, i * count * es, count * es) == slice(input(dt, i, n * count, seed), r * count * es, count * es))) return what;
      return {};
    }
    case Kind::reduce_scatter: case Kind::reduce_scatter_block: {
      std::vector<size_t> counts(n, count);
      if (k == Kind::reduce_scatter)
        for (int i = 0; i < n; ++i) counts[i] = (count + i) % (count + 3);
      size_t total = 0, off = 0;
      for (int i = 0; i < n; ++i) total += counts[i];
      for (int i = 0; i < r; ++i) off += counts[i];
      Bytes in = input(dt, r, total, seed, prod), out(counts[r] * es);
      const void* s = in.data();
      if (in_place) { out = in; s = coll::IN_PLACE; }
      if (k == Kind::reduce_scatter) coll::reduce_scatter(w, s, out.data(), counts, dt, op, o);
      else coll::reduce_scatter_block(w, s, out.data(), count, dt, op, o);
      if (!(slice(out, 0, counts[r] * es) == slice(fold(dt, op, 0, n, total, seed, prod), off * es, counts[r] * es))) return what;
      return {};
    }
    case Kind::gatherv: case Kind::scatterv: case Kind::allgatherv: case Kind::alltoallv: {
      // Rank i contributes (count + i) % 5 + i elements; displacements leave gaps.
      std::vector<size_t> counts(n), displs(n);
      size_t extent = 0;
      for (int i = 0; i < n; ++i) {
        counts[i] = count ? (count + i) % 5 + i : 0;
        displs[i] = extent + 1;
        extent = displs[i] + counts[i];
      }
      if (k == Kind::alltoallv) {
        // send to j: counts[(r+j)%n] elements; receive from j: counts[(j+r)%n].
        std::vector<size_t> sc(n), sd(n), rc(n), rd(n);
        size_t se = 0, re = 0;
        for (int j = 0; j < n; ++j) {
          sc[j] = counts[(r + j) % n]; sd[j] = se; se += sc[j] + 2;
          rc[j] = counts[(j + r) % n]; rd[j] = re; re += rc[j] + 1;
        }
        Bytes in = input(dt, r, se, seed), out(re * es);
        coll::alltoallv(w, in.data(), sc, sd, out.data(), rc, rd, dt, o);
        for (int j = 0; j < n; ++j) {
          // what j sent me: its block for destination r, at j's sdispl for r.
          size_t jsd = 0;
          for (int m = 0; m < r; ++m) jsd += counts[(j + m) % n] + 2;
          if (!(slice(out, rd[j] * es, rc[j] * es) == slice(input(dt, j, jsd + rc[j], seed), jsd * es, rc[j] * es))) return what;
        }
        return {};
      }
      Bytes out(extent * es);
      if (k == Kind::scatterv) {
        Bytes all = input(dt, root, extent, seed), part(counts[r] * es);
        coll::scatterv(w, r == root ? all.data() : nullptr, counts, displs, part.data(), counts[r], dt, root, o);
        if (!(part == slice(all, displs[r] * es, counts[r] * es))) return what;
        return {};
      }
      Bytes me = input(dt, r, counts[r], seed);
      if (k == Kind::gatherv) coll::gatherv(w, me.data(), counts[r], out.data(), counts, displs, dt, root, o);
      else coll::allgatherv(w, me.data(), counts[r], out.data(), counts, displs, dt, o);
      if (k == Kind::gatherv && r != root) return {};
      for (int i = 0; i < n; ++i)
        if (!(slice(out, displs[i] * es, counts[i] * es) == input(dt, i, counts[i], seed))) return what;
      return {};
    }
  }
  return {};
}

}  // namespace colltest
