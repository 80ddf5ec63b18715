// Streaming collectives (bcast, reduce, scatter, gather channels) with ranks as
// threads on shm and tcp: results against serial references for sizes 1-5, several
// roots, ports and degrees/tiles; two collectives at once on different ports;
// consecutive collectives on one port; the readiness/turn-taking protocol; errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interlace/interlace.hpp"
#include "interlace/stream/collectives.hpp"

using namespace interlace;
using namespace interlace::stream;

namespace {

class StreamColl : public ::testing::TestWithParam<const char*> {
 protected:
  void run(int n, const std::function<void(Communicator&)>& fn) {
    run_ranks_as_threads(n, [&](Runtime& rt) {
      Communicator w = rt.world();
      fn(w);
    }, GetParam());
  }
};

// The element rank r contributes at index i: distinct per rank and index.
int64_t val(int r, size_t i) { return static_cast<int64_t>(i) * 7 + r * 1000003 - 5; }

void check_bcast(Communicator& w, size_t n, int root, int port, size_t degree) {
  BcastChannel ch(w, n, Datatype::int64, port, root, degree);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t x = w.rank() == root ? val(root, i) : -1;
    ch.bcast(&x);
    bad += x != val(root, i);
  }
  EXPECT_EQ(bad, 0u) << "n " << n << " root " << root << " degree " << degree;
  EXPECT_EQ(ch.remaining(), 0u);
}

TEST_P(StreamColl, BcastAllSizesRootsDegrees) {
  for (int size = 1; size <= 5; ++size)
    run(size, [&](Communicator& w) {
      for (int root = 0; root < size; ++root)
        for (size_t degree : {size_t(1), size_t(16), size_t(100000)})
          check_bcast(w, degree == 1 ? 100 : 5000, root, 3 + root, degree);
      check_bcast(w, 0, size - 1, 9, 4);  // empty: nothing moves, numbering stays in step
      check_bcast(w, 1, size - 1, 9, 4);
    });
}

void check_reduce(Communicator& w, size_t n, int root, int port, size_t tile, ReduceOp op) {
  ReduceChannel ch(w, n, Datatype::int64, op, port, root, tile);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = val(w.rank(), i);
    int64_t y = -1;
    ch.reduce(&x, &y);
    if (w.rank() != root) continue;
    int64_t want = val(0, i);
    for (int r = 1; r < w.size(); ++r) {
      const int64_t c = val(r, i);
      reduce_or_throw(op, Datatype::int64, &want, &c, 1);
    }
    bad += y != want;
  }
  EXPECT_EQ(bad, 0u) << "n " << n << " root " << root << " tile " << tile << " op "
                     << reduce_op_name(op);
}

TEST_P(StreamColl, ReduceAllSizesRootsTilesOps) {
  for (int size = 1; size <= 5; ++size)
    run(size, [&](Communicator& w) {
      for (int root = 0; root < size; ++root)
        for (size_t tile : {size_t(1), size_t(64), size_t(1024)})
          check_reduce(w, tile == 1 ? 200 : 4000, root, root, tile, ReduceOp::sum);
      for (ReduceOp op : {ReduceOp::max, ReduceOp::min, ReduceOp::prod, ReduceOp::bxor, ReduceOp::bor})
        check_reduce(w, 500, size / 2, 77, 32, op);
    });
}

TEST_P(StreamColl, ReduceFloatInRankOrder) {
  run(4, [](Communicator& w) {
    const size_t n = 3000;
    ReduceChannel ch(w, n, Datatype::float32, ReduceOp::sum, 5, 2, 100);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      const float x = 0.1f * float(w.rank() + 1) + float(i) * 1e-3f;
      float y = 0;
      ch.reduce(&x, &y);
      float want = 0.1f * 1 + float(i) * 1e-3f;
      for (int r = 1; r < 4; ++r) want += 0.1f * float(r + 1) + float(i) * 1e-3f;
      if (w.rank() == 2) bad += y != want;  // bit-exact: combined in rank order
    }
    EXPECT_EQ(bad, 0u);
  });
}

void check_scatter(Communicator& w, size_t n, int root, int port, size_t degree) {
  ScatterChannel ch(w, n, Datatype::int64, port, root, degree);
  const bool is_root = w.rank() == root;
  const size_t calls = is_root ? n * w.size() : n;
  EXPECT_EQ(ch.remaining(), calls);
  std::vector<int64_t> got;
  for (size_t j = 0; j < calls; ++j) {
    // The root's j-th element goes to rank j / n as its (j % n)-th element.
    const int64_t x = is_root ? val(int(j / n), j % n) : 0;
    int64_t y = -1;
    if (ch.scatter(&x, &y)) got.push_back(y);
  }
  ASSERT_EQ(got.size(), n);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += got[i] != val(w.rank(), i);
  EXPECT_EQ(bad, 0u) << "n " << n << " root " << root << " degree " << degree;
}

TEST_P(StreamColl, ScatterAllSizesRootsDegrees) {
  for (int size = 1; size <= 5; ++size)
    run(size, [&](Communicator& w) {
      for (int root = 0; root < size; ++root)
        for (size_t degree : {size_t(1), size_t(32), size_t(100000)})
          check_scatter(w, degree == 1 ? 100 : 3000, root, 11, degree);
    });
}

void check_gather(Communicator& w, size_t n, int root, int port, size_t degree) {
  GatherChannel ch(w, n, Datatype::int64, port, root, degree);
  const bool is_root = w.rank() == root;
  const size_t calls = is_root ? n * w.size() : n;
  std::vector<int64_t> got;
  size_t mine = 0;
  for (size_t j = 0; j < calls; ++j) {
    // The root reads snd only while its own part passes.
    const bool own = !is_root || int(j / n) == root;
    const int64_t x = own ? val(w.rank(), mine++) : 0;
    int64_t y = -1;
    if (ch.gather(&x, &y)) got.push_back(y);
  }
  if (!is_root) {
    EXPECT_TRUE(got.empty());
    return;
  }
  ASSERT_EQ(got.size(), n * w.size());
  size_t bad = 0;
  for (size_t j = 0; j < got.size(); ++j) bad += got[j] != val(int(j / n), j % n);
  EXPECT_EQ(bad, 0u) << "n " << n << " root " << root << " degree " << degree;
}

TEST_P(StreamColl, GatherAllSizesRootsDegrees) {
  for (int size = 1; size <= 5; ++size)
    run(size, [&](Communicator& w) {
      for (int root = 0; root < size; ++root)
        for (size_t degree : {size_t(1), size_t(32), size_t(100000)})
          check_gather(w, degree == 1 ? 100 : 3000, root, 12, degree);
    });
}

// A bcast and a reduce on different ports advance element by element together, and a
// scatter and gather likewise; with small degrees either would block without the other.
TEST_P(StreamColl, TwoCollectivesAtOnceOnDifferentPorts) {
  run(4, [](Communicator& w) {
    const size_t n = 4000;
    BcastChannel b(w, n, Datatype::int64, 1, 0, 8);
    ReduceChannel r(w, n, Datatype::int64, ReduceOp::sum, 2, 3, 8);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      int64_t x = w.rank() == 0 ? val(0, i) : 0;
      b.bcast(&x);
      bad += x != val(0, i);
      int64_t y = 0;
      r.reduce(&x, &y);  // every rank contributes the broadcast value
      if (w.rank() == 3) bad += y != 4 * val(0, i);
    }
    EXPECT_EQ(bad, 0u);

    // Scatter and gather from one root, element by element: rank r pops its scattered
    // element i and sends it back through the gather, which the root takes right after
    // scattering it. (Different roots here would be a cycle the program must avoid.)
    const int root = 1;
    ScatterChannel s(w, 500, Datatype::int64, 1, root, 4);
    GatherChannel g(w, 500, Datatype::int64, 2, root, 4);
    const size_t calls = w.rank() == root ? 2000 : 500;
    std::vector<int64_t> gathered;
    for (size_t j = 0; j < calls; ++j) {
      const int64_t x = val(int(j / 500), j % 500);  // read at the root only
      int64_t y = -1, z = -1;
      const bool got = s.scatter(&x, &y);
      if (got) bad += y != val(w.rank(), w.rank() == root ? j % 500 : j);
      if (g.gather(&y, &z)) gathered.push_back(z);
    }
    if (w.rank() == root) {
      ASSERT_EQ(gathered.size(), 2000u);
      for (size_t j = 0; j < 2000; ++j) bad += gathered[j] != val(int(j / 500), j % 500);
    }
    EXPECT_EQ(bad, 0u);
  });
}

// Back-to-back collectives on one port, changing root and kind, stay distinct even
// when a fast root runs ahead into the next one.
TEST_P(StreamColl, ConsecutiveCollectivesOnOnePort) {
  run(3, [](Communicator& w) {
    for (int round = 0; round < 30; ++round) {
      const int root = round % 3;
      const size_t n = 50 + round;
      check_bcast(w, n, root, 42, round % 2 ? 1000 : 4);
      check_reduce(w, n, (root + 1) % 3, 42, round % 2 ? 1000 : 4, ReduceOp::sum);
      check_scatter(w, n, root, 42, 8);
      check_gather(w, n, (root + 2) % 3, 42, 8);
    }
  });
}

TEST_P(StreamColl, ErrorsNameBadValues) {
  run(2, [](Communicator& w) {
    auto msg = [](auto f) {
      try { f(); } catch (const Error& e) { return std::string(e.what()); }
      return std::string("no error");
    };
    EXPECT_NE(msg([&] { BcastChannel(w, 4, Datatype::int32, 0, 2); }).find("root 2"), std::string::npos);
    EXPECT_NE(msg([&] { GatherChannel(w, 4, Datatype::int32, -3, 0); }).find("port -3"), std::string::npos);
    EXPECT_NE(msg([&] { ReduceChannel(w, 4, Datatype::float32, ReduceOp::bxor, 0, 0); }).find("float32"),
              std::string::npos);
    // One-element bcast; a second call is past the count.
    BcastChannel b(w, 1, Datatype::int32, 6, 0);
    int32_t x = 5;
    b.bcast(&x);
    EXPECT_EQ(x, 5);
    EXPECT_NE(msg([&] { b.bcast(&x); }).find("1 times"), std::string::npos);
  });
}

INSTANTIATE_TEST_SUITE_P(Fabrics, StreamColl, ::testing::Values("shm", "tcp"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
