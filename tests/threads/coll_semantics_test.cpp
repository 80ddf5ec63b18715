// Collective semantics beyond results: non-blocking overlap, concurrent
// communicators, run-time registration, custom schedules, selection overrides,
// mismatched collectives and bad input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "coll_reference.hpp"
#include "interlace/interlace.hpp"

using namespace interlace;
using coll::Kind;

namespace {

double tri(int n) { return n * (n - 1) / 2.0; }

TEST(CollSemantics, NonBlockingOverlapAndOutOfOrderWaits) {
  run_ranks_as_threads(4, [](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<std::vector<double>> in(6, std::vector<double>(5000)), out(6, std::vector<double>(5000));
    std::vector<coll::Request> reqs;
    for (int i = 0; i < 6; ++i) {
      std::fill(in[i].begin(), in[i].end(), w.rank() + i);
      reqs.push_back(coll::iallreduce(w, in[i].data(), out[i].data(), 5000, Datatype::float64, ReduceOp::sum));
    }
    // Local work between start and completion, then waits in reverse order.
    volatile double x = 0;
    for (int k = 0; k < 100000; ++k) x += k;
    for (int i = 5; i >= 0; --i) {
      reqs[i].wait();
      EXPECT_EQ(out[i][4999], tri(4) + 4 * i);
    }
    bool done = false;
    coll::Request b = coll::ibarrier(w);
    while (!done) done = b.test();
  });
}

TEST(CollSemantics, ConcurrentCollectivesOnSeveralCommunicators) {
  run_ranks_as_threads(6, [](Runtime& rt) {
    Communicator w = rt.world();
    Communicator d = w.dup();
    Communicator half = w.split(w.rank() % 2, w.rank());
    int a = w.rank(), b = 0, c = 0, e = 0;
    std::vector<int> g(half.size());
    coll::Request r1 = coll::iallreduce(w, &a, &b, 1, Datatype::int32, ReduceOp::sum);
    coll::Request r2 = coll::iallreduce(half, &a, &c, 1, Datatype::int32, ReduceOp::max);
    coll::Request r3 = coll::iallgather(half, &a, g.data(), 1, Datatype::int32);
    coll::Request r4 = coll::iallreduce(d, &a, &e, 1, Datatype::int32, ReduceOp::min);
    r4.wait(); r3.wait(); r2.wait(); r1.wait();
    EXPECT_EQ(b, 15);
    EXPECT_EQ(c, w.rank() % 2 ? 5 : 4);
    EXPECT_EQ(e, 0);
    for (int i = 0; i < half.size(); ++i) EXPECT_EQ(g[i], 2 * i + w.rank() % 2);
  });
}

TEST(CollSemantics, RanksStartCommunicatorsInDifferentOrders) {
  // Collectives on different communicators are independent: rank order of starting
  // them (and of waiting) may differ between ranks without deadlock.
  run_ranks_as_threads(4, [](Runtime& rt) {
    Communicator a = rt.world(), b = a.dup();
    std::vector<double> x(50000, 1.0), ya(50000), yb(50000);
    coll::Request ra, rb;
    if (a.rank() % 2) {
      rb = coll::iallreduce(b, x.data(), yb.data(), x.size(), Datatype::float64, ReduceOp::sum);
      ra = coll::iallreduce(a, x.data(), ya.data(), x.size(), Datatype::float64, ReduceOp::sum);
      ra.wait();
      rb.wait();
    } else {
      ra = coll::iallreduce(a, x.data(), ya.data(), x.size(), Datatype::float64, ReduceOp::sum);
      rb = coll::iallreduce(b, x.data(), yb.data(), x.size(), Datatype::float64, ReduceOp::sum);
      rb.wait();
      ra.wait();
    }
    EXPECT_EQ(ya[49999], 4.0);
    EXPECT_EQ(yb[0], 4.0);
  });
}

// Progress-thread mode (INTERLACE_PROGRESS=thread) is covered by the multi-process
// battery (tests/python/test_coll.py): in-process, the engine's progress thread starts
// before the p2p engine registers its hook, a race TSan reports in every such test.

TEST(CollSemantics, RunTimeRegistrationSelectableByName) {
  // A star allreduce written from primitives: everyone sends to 0, 0 combines and sends back.
  coll::register_algorithm({Kind::allreduce, "test_star",
                            [](const coll::Args& a, coll::Schedule& s) {
                              const size_t bytes = a.count * a.esize;
                              auto c = s.copy(a.recvbuf, a.sendbuf, bytes);
                              if (a.rank != 0) {
                                s.send(0, a.recvbuf, bytes, {c});
                                s.recv(0, a.recvbuf, bytes, {c});
                                return;
                              }
                              std::vector<int> got{c};
                              auto last = c;
                              for (int i = 1; i < a.size; ++i) last = s.recv_reduce(i, a.recvbuf, a.count, {last});
                              for (int i = 1; i < a.size; ++i) s.send(i, a.recvbuf, bytes, {last});
                            },
                            false, "test: star through rank 0"});
  auto names = coll::algorithm_names(Kind::allreduce);
  EXPECT_NE(std::find(names.begin(), names.end(), "test_star"), names.end());
  run_ranks_as_threads(5, [](Runtime& rt) {
    Communicator w = rt.world();
    long x = w.rank() + 1, y = 0;
    coll::Request r = coll::iallreduce(w, &x, &y, 1, Datatype::int64, ReduceOp::sum, {"test_star"});
    r.wait();
    EXPECT_EQ(r.algorithm(), "test_star");
    EXPECT_EQ(y, 15);
  });
  // And through the selection table.
  setenv("INTERLACE_COLL", "allreduce:0-inf:@test_star", 1);
  run_ranks_as_threads(3, [](Runtime& rt) {
    int x = 2, y = 0;
    coll::Request r = coll::iallreduce(rt.world(), &x, &y, 1, Datatype::int32, ReduceOp::prod);
    r.wait();
    EXPECT_EQ(r.algorithm(), "test_star");
    EXPECT_EQ(y, 8);
  });
  unsetenv("INTERLACE_COLL");
  EXPECT_TRUE(coll::unregister_algorithm(Kind::allreduce, "test_star"));
  EXPECT_FALSE(coll::unregister_algorithm(Kind::allreduce, "test_star"));
  run_ranks_as_threads(1, [](Runtime& rt) {
    int x = 1, y = 0;
    EXPECT_THROW(coll::allreduce(rt.world(), &x, &y, 1, Datatype::int32, ReduceOp::sum, {"test_star"}), Error);
  });
}

TEST(CollSemantics, CustomScheduleFromPrimitives) {
  run_ranks_as_threads(4, [](Runtime& rt) {
    Communicator w = rt.world();
    // Ring shift with a local combine: out = mine + left neighbour's.
    int mine = w.rank() * 10, left = 0, out = mine;
    auto s = std::make_shared<coll::Schedule>(Datatype::int32, ReduceOp::sum);
    s->send((w.rank() + 1) % 4, &mine, sizeof mine);
    auto r = s->recv((w.rank() + 3) % 4, &left, sizeof left);
    s->combine(&out, &left, 1, {r});
    coll::start(w, s, "shift").wait();
    EXPECT_EQ(out, w.rank() * 10 + ((w.rank() + 3) % 4) * 10);
    // Primitives on local buffers.
    int a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
    coll::combine(a, b, 3, Datatype::int32, ReduceOp::max);
    EXPECT_EQ(a[2], 6);
    coll::copy(b, a, 3, Datatype::int32);
    EXPECT_EQ(b[0], 4);
  });
}

TEST(CollSemantics, SelectionTableAndOverrides) {
  EXPECT_EQ(coll::select(Kind::allreduce, 8, 4), "recursive_doubling");
  EXPECT_EQ(coll::select(Kind::allreduce, 16 << 20, 2), "ring");
  EXPECT_EQ(coll::select(Kind::allreduce, 16 << 20, 4), "rabenseifner");
  setenv("INTERLACE_COLL", "allreduce:0-4k:@ring#allreduce:4k-inf:2-3:@rabenseifner", 1);
  EXPECT_EQ(coll::select(Kind::allreduce, 8, 4), "ring");
  EXPECT_EQ(coll::select(Kind::allreduce, 1 << 20, 3), "rabenseifner");
  EXPECT_EQ(coll::select(Kind::allreduce, 16 << 20, 8), "rabenseifner");  // falls through to the defaults
  EXPECT_NE(coll::describe().find("INTERLACE_COLL  allreduce:0-4k"), std::string::npos);
  setenv("INTERLACE_COLL", "allreduce:0-4k:@nosuch", 1);
  try {
    coll::select(Kind::allreduce, 8, 4);
    ADD_FAILURE() << "no error for an unknown algorithm";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nosuch"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("recursive_doubling"), std::string::npos) << e.what();
  }
  setenv("INTERLACE_COLL", "allreduce:zero-4k:@ring", 1);
  EXPECT_THROW(coll::select(Kind::allreduce, 8, 4), Error);
  unsetenv("INTERLACE_COLL");
  EXPECT_NE(coll::describe().find("scatter_allgather"), std::string::npos);
}

TEST(CollSemantics, BadInputNamesValues) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    int x = 1, y = 0;
    auto msg = [](const std::function<void()>& f) -> std::string {
      try { f(); } catch (const Error& e) { return e.what(); }
      return "no error";
    };
    EXPECT_NE(msg([&] { coll::bcast(w, &x, 1, Datatype::int32, 5); }).find("root 5"), std::string::npos);
    EXPECT_NE(msg([&] { coll::bcast(w, &x, 1, Datatype::int32, -1); }).find("root -1"), std::string::npos);
    std::string m = msg([&] { coll::allreduce(w, &x, &y, 1, Datatype::int32, ReduceOp::sum, {"fastest"}); });
    EXPECT_NE(m.find("fastest"), std::string::npos) << m;
    EXPECT_NE(m.find("rabenseifner"), std::string::npos) << m;
    std::vector<size_t> two{1, 1}, three{1, 1, 1};
    m = msg([&] { coll::allgatherv(w, &x, 1, &y, three, two, Datatype::int32); });
    EXPECT_NE(m.find("3 entries"), std::string::npos) << m;
    m = msg([&] { coll::allreduce(w, &x, nullptr, 1, Datatype::int32, ReduceOp::sum); });
    EXPECT_NE(m.find("recvbuf is null"), std::string::npos) << m;
    float f = 1;
    m = msg([&] { coll::allreduce(w, &f, &f, 1, Datatype::float32, ReduceOp::bxor); });
    EXPECT_NE(m.find("float32"), std::string::npos) << m;
    coll::barrier(w);  // still usable after the errors
  });
}

TEST(CollSemantics, CountMismatchIsAnError) {
  EXPECT_THROW(run_ranks_as_threads(2, [](Runtime& rt) {
                 Communicator w = rt.world();
                 std::vector<int> v(w.rank() ? 8 : 4, 1);
                 coll::bcast(w, v.data(), v.size(), Datatype::int32, 0, {"linear"});
               }),
               Error);
}

TEST(CollSemantics, DifferentCollectivesAreDetected) {
  std::string err;
  run_ranks_as_threads(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    int x = 1, y = 0;
    if (w.rank() == 0) {
      try {
        coll::allreduce(w, &x, &y, 1, Datatype::int32, ReduceOp::sum);
      } catch (const Error& e) {
        err = e.what();
      }
      w.send(&x, 1, Datatype::int32, 1, 0);  // rank 1 stays until rank 0 has its answer
    } else {
      coll::bcast(w, &x, 1, Datatype::int32, 1);
      w.recv(&y, 1, Datatype::int32, 0, 0);
    }
  });
  EXPECT_NE(err.find("collective mismatch"), std::string::npos) << err;
  EXPECT_NE(err.find("bcast"), std::string::npos) << err;
}

}  // namespace
