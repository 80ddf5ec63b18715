// Every collective x every registered algorithm x communicator sizes 1-8, against
// the serial reference, for a sample of datatypes, operators and sizes.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "coll_reference.hpp"
#include "interlace/interlace.hpp"

using namespace interlace;
using namespace colltest;
using coll::Kind;

namespace {

using Bytes = std::vector<std::byte>;

std::string label(Kind k, const std::string& alg, Datatype dt, const coll::Op& op, size_t count, int n) {
  return std::string(coll::kind_name(k)) + "/" + alg + " " + std::string(datatype_name(dt)) + " " + op.name() +
         " count " + std::to_string(count) + " n " + std::to_string(n);
}

Bytes slice(const Bytes& b, size_t off, size_t len) { return Bytes(b.begin() + off, b.begin() + off + len); }

// Runs collective k with algorithm alg on w and checks this rank's result.
void check(const Communicator& w, Kind k, const std::string& alg, Datatype dt, const coll::Op& op, size_t count,
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
      return;
    case Kind::bcast: {
      Bytes buf = r == root ? mine : Bytes(count * es);
      coll::bcast(w, buf.data(), count, dt, root, o);
      EXPECT_EQ(buf, input(dt, root, count, seed)) << what;
      return;
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
      if (k == Kind::reduce && r != root) return;
      if (k == Kind::exscan && r == 0) return;
      const int hi = k == Kind::scan ? r + 1 : k == Kind::exscan ? r : n;
      EXPECT_EQ(out, fold(dt, op, 0, hi, count, seed, prod)) << what;
      return;
    }
    case Kind::gather: case Kind::allgather: {
      Bytes out(n * count * es);
      const void* s = mine.data();
      if (in_place && (k == Kind::allgather || r == root)) {
        std::memcpy(out.data() + r * count * es, mine.data(), count * es);
        s = coll::IN_PLACE;
      }
      if (k == Kind::gather) coll::gather(w, s, out.data(), count, dt, root, o);
      else coll::allgather(w, s, out.data(), count, dt, o);
      if (k == Kind::gather && r != root) return;
      for (int i = 0; i < n; ++i) EXPECT_EQ(slice(out, i * count * es, count * es), input(dt, i, count, seed)) << what;
      return;
    }
    case Kind::scatter: {
      Bytes all = input(dt, root, n * count, seed);
      Bytes out(count * es);
      if (in_place && r == root) coll::scatter(w, all.data(), coll::IN_PLACE, count, dt, root, o);
      else coll::scatter(w, r == root ? all.data() : nullptr, out.data(), count, dt, root, o);
      if (in_place && r == root) return;
      EXPECT_EQ(out, slice(all, r * count * es, count * es)) << what;
      return;
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
        EXPECT_EQ(slice(out, i * count * es, count * es), slice(input(dt, i, n * count, seed), r * count * es, count * es))
            << what;
      return;
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
      EXPECT_EQ(slice(out, 0, counts[r] * es), slice(fold(dt, op, 0, n, total, seed, prod), off * es, counts[r] * es))
          << what;
      return;
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
          EXPECT_EQ(slice(out, rd[j] * es, rc[j] * es), slice(input(dt, j, jsd + rc[j], seed), jsd * es, rc[j] * es))
              << what;
        }
        return;
      }
      Bytes out(extent * es);
      if (k == Kind::scatterv) {
        Bytes all = input(dt, root, extent, seed), part(counts[r] * es);
        coll::scatterv(w, r == root ? all.data() : nullptr, counts, displs, part.data(), counts[r], dt, root, o);
        EXPECT_EQ(part, slice(all, displs[r] * es, counts[r] * es)) << what;
        return;
      }
      Bytes me = input(dt, r, counts[r], seed);
      if (k == Kind::gatherv) coll::gatherv(w, me.data(), counts[r], out.data(), counts, displs, dt, root, o);
      else coll::allgatherv(w, me.data(), counts[r], out.data(), counts, displs, dt, o);
      if (k == Kind::gatherv && r != root) return;
      for (int i = 0; i < n; ++i)
        EXPECT_EQ(slice(out, displs[i] * es, counts[i] * es), input(dt, i, counts[i], seed)) << what;
      return;
    }
  }
}

const Datatype kTypes[] = {Datatype::int32, Datatype::float32, Datatype::float64, Datatype::bfloat16,
                           Datatype::float16, Datatype::uint8, Datatype::int64, Datatype::int16};
const ReduceOp kOps[] = {ReduceOp::sum, ReduceOp::max, ReduceOp::min, ReduceOp::prod};

bool reducing(Kind k) {
  return k == Kind::reduce || k == Kind::allreduce || k == Kind::scan || k == Kind::exscan ||
         k == Kind::reduce_scatter || k == Kind::reduce_scatter_block;
}

// Sweeps every kind and algorithm on one communicator; `counts` are per-call sizes.
void sweep(const Communicator& w, const std::vector<size_t>& counts, int seed0) {
  int seed = seed0;
  for (int ki = 1; ki < coll::kKindCount; ++ki) {
    const Kind k = static_cast<Kind>(ki);
    for (const std::string& alg : coll::algorithm_names(k)) {
      for (size_t count : counts) {
        ++seed;
        const Datatype dt = kTypes[seed % 8];
        const coll::Op op = reducing(k) ? coll::Op(kOps[seed % 4]) : coll::Op();
        check(w, k, alg, dt, op, count, seed, seed % 3 == 0);
      }
    }
  }
}

TEST(CollAlgorithms, EveryAlgorithmSizes1To8Small) {
  for (int n = 1; n <= 8; ++n)
    run_ranks_as_threads(n, [](Runtime& rt) { sweep(rt.world(), {0, 1, 5, 37}, 100); });
}

TEST(CollAlgorithms, EveryAlgorithmMediumSizesSegmented) {
  // 70000 elements cross the eager limit and, with 4 KiB segments, many segments.
  setenv("INTERLACE_COLL_SEGMENT", "4096", 1);
  for (int n : {2, 3, 5, 8})
    run_ranks_as_threads(n, [](Runtime& rt) { sweep(rt.world(), {1000, 70000}, 200); });
  unsetenv("INTERLACE_COLL_SEGMENT");
}

TEST(CollAlgorithms, LargeMessagesMiB) {
  // A few MiB through the default selection (ring/scatter_allgather etc.).
  for (int n : {3, 4}) {
    run_ranks_as_threads(n, [](Runtime& rt) {
      Communicator w = rt.world();
      const size_t count = 1 << 20;  // 4 MiB of float32
      for (Kind k : {Kind::allreduce, Kind::bcast, Kind::reduce, Kind::reduce_scatter_block})
        check(w, k, "", Datatype::float32, ReduceOp::sum, k == Kind::reduce_scatter_block ? count / 4 : count, 7);
      check(w, Kind::allgather, "", Datatype::int32, ReduceOp::sum, count / 4, 8);
      check(w, Kind::alltoall, "", Datatype::int32, ReduceOp::sum, count / 4, 9);
    });
  }
}

TEST(CollAlgorithms, TcpFabric) {
  for (int n : {3, 4})
    run_ranks_as_threads(n, [](Runtime& rt) { sweep(rt.world(), {3, 3000}, 300); }, "tcp");
}

TEST(CollAlgorithms, AllOpsAndTypesAllreduce) {
  run_ranks_as_threads(3, [](Runtime& rt) {
    int seed = 500;
    for (int d = 0; d < kDatatypeCount; ++d)
      for (int o = 0; o < kReduceOpCount; ++o) {
        const Datatype dt = static_cast<Datatype>(d);
        const ReduceOp op = static_cast<ReduceOp>(o);
        if (!reduce_op_supports(op, dt)) continue;
        check(rt.world(), Kind::allreduce, "", dt, op, 33, ++seed);
      }
  });
}

TEST(CollAlgorithms, NonCommutativeUserOpKeepsRankOrder) {
  for (int n : {1, 2, 3, 5, 8}) {
    run_ranks_as_threads(n, [](Runtime& rt) {
      Communicator w = rt.world();
      const coll::Op mm = matmul_op();
      for (Kind k : {Kind::reduce, Kind::allreduce, Kind::scan, Kind::exscan, Kind::reduce_scatter_block})
        for (int seed : {1, 2, 3}) check(w, k, "", Datatype::uint32, mm, 8, seed, seed == 2);
      EXPECT_THROW(coll::allreduce(w, nullptr, nullptr, 0, Datatype::uint32, mm, {"ring"}), Error);
    });
  }
}

}  // namespace
