// p2p semantics with ranks as threads, on every fabric.
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <vector>

#include "interlace/interlace.hpp"
#include "interlace/engine/context.hpp"

using namespace interlace;

namespace {

// Fabric variants: shm with single copy, shm copying through frames, tcp, udp.
struct Variant {
  const char* fabric;
  const char* single_copy;
};
const Variant kVariants[] = {{"shm", "1"}, {"shm", "0"}, {"tcp", "1"}, {"udp", "1"}};

class P2p : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    const Variant& v = kVariants[GetParam()];
    setenv("INTERLACE_SHM_SINGLE_COPY", v.single_copy, 1);
    fabric = v.fabric;
  }
  void TearDown() override { unsetenv("INTERLACE_SHM_SINGLE_COPY"); }
  void run(int n, const std::function<void(Runtime&)>& fn) { run_ranks_as_threads(n, fn, fabric); }
  std::string fabric;
};

uint8_t pattern(int src, int dst, size_t i) { return static_cast<uint8_t>(src * 31 + dst * 7 + i * 13); }

TEST_P(P2p, RingAtSeveralSizes) {
  for (int n : {1, 2, 3, 4, 8}) {
    run(n, [](Runtime& rt) {
      Communicator w = rt.world();
      const int next = (w.rank() + 1) % w.size(), prev = (w.rank() + w.size() - 1) % w.size();
      int token = w.rank() * 100;
      int got = -1;
      Status st = w.sendrecv(&token, 1, Datatype::int32, next, 5, &got, 1, Datatype::int32, prev, 5);
      EXPECT_EQ(got, prev * 100);
      EXPECT_EQ(st.source, prev);
      EXPECT_EQ(st.tag, 5);
      EXPECT_EQ(st.count(Datatype::int32), 1u);
    });
  }
}

TEST_P(P2p, SizesFromZeroToLargeAcrossProtocols) {
  const std::vector<size_t> sizes = {0, 1, 8, 4095, 16384, 16385, 100000, 1 << 20, 9 << 20};
  run(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    for (size_t s : sizes) {
      if (w.rank() == 0) {
        std::vector<uint8_t> b(s);
        for (size_t i = 0; i < s; ++i) b[i] = pattern(0, 1, i + s);
        w.send(b.data(), s, Datatype::uint8, 1, 1);
      } else {
        std::vector<uint8_t> b(s + 3, 0xee);
        Status st = w.recv(b.data(), s + 3, Datatype::uint8, 0, 1);
        ASSERT_EQ(st.bytes, s);
        for (size_t i = 0; i < s; ++i) ASSERT_EQ(b[i], pattern(0, 1, i + s)) << "size " << s << " at " << i;
        EXPECT_EQ(b[s], 0xee);  // nothing written past the message
      }
    }
  });
}

TEST_P(P2p, AnySourceAnyTagReportsStatus) {
  run(4, [](Runtime& rt) {
    Communicator w = rt.world();
    if (w.rank() == 0) {
      std::vector<int> seen(4, 0);
      for (int i = 0; i < 3; ++i) {
        int64_t v = 0;
        Status st = w.recv(&v, 1, Datatype::int64, ANY_SOURCE, ANY_TAG);
        EXPECT_EQ(v, st.source * 1000 + st.tag);
        EXPECT_EQ(st.tag, 10 + st.source);
        seen[st.source]++;
      }
      EXPECT_EQ(seen, (std::vector<int>{0, 1, 1, 1}));
    } else {
      int64_t v = w.rank() * 1000 + 10 + w.rank();
      w.send(&v, 1, Datatype::int64, 0, 10 + w.rank());
    }
  });
}

TEST_P(P2p, NonOvertakingOrderPerSenderAndTag) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    const int n = 2000;
    if (w.rank() == 0) {
      std::vector<int> big(50000);
      for (int i = 0; i < n; ++i) {
        if (i % 97 == 0) {  // mix a rendezvous message into the eager stream
          big[0] = i;
          w.send(big.data(), big.size(), Datatype::int32, 1, 3);
        } else {
          w.send(&i, 1, Datatype::int32, 1, 3);
        }
      }
    } else {
      std::vector<int> buf(50000);
      for (int i = 0; i < n; ++i) {
        w.recv(buf.data(), buf.size(), Datatype::int32, 0, ANY_TAG);
        ASSERT_EQ(buf[0], i);
      }
    }
  });
}

TEST_P(P2p, NonBlockingWaitallWaitanyAndTest) {
  run(3, [](Runtime& rt) {
    Communicator w = rt.world();
    if (w.rank() == 0) {
      std::vector<double> a(10), b(200000);
      std::vector<Request> rq;
      rq.push_back(w.irecv(a.data(), a.size(), Datatype::float64, 1, 0));
      rq.push_back(w.irecv(b.data(), b.size(), Datatype::float64, 2, 0));
      int first = Request::wait_any(rq);
      EXPECT_TRUE(first == 0 || first == 1);
      std::vector<Status> st(2);
      Request::wait_all(rq, st.data());
      EXPECT_EQ(st[0].source, 1);
      EXPECT_EQ(st[1].source, 2);
      EXPECT_EQ(a[9], 9.0);
      EXPECT_EQ(b[199999], 199999.0);
    } else {
      std::vector<double> v(w.rank() == 1 ? 10 : 200000);
      std::iota(v.begin(), v.end(), 0.0);
      Request r = w.isend(v.data(), v.size(), Datatype::float64, 0, 0);
      while (!r.test()) {}
    }
  });
}

TEST_P(P2p, ProbeThenReceiveExactSize) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    if (w.rank() == 1) {
      std::vector<int16_t> v(777, 3);
      w.send(v.data(), v.size(), Datatype::int16, 0, 42);
      std::vector<int16_t> big(300000, 4);
      w.send(big.data(), big.size(), Datatype::int16, 0, 43);
    } else {
      Status st = w.probe(ANY_SOURCE, 42);
      EXPECT_EQ(st.source, 1);
      EXPECT_EQ(st.count(Datatype::int16), 777u);
      std::vector<int16_t> v(st.count(Datatype::int16));
      w.recv(v.data(), v.size(), Datatype::int16, st.source, st.tag);
      EXPECT_EQ(v[776], 3);
      Status s2;
      while (!w.iprobe(1, 43, &s2)) {}
      EXPECT_EQ(s2.count(Datatype::int16), 300000u);
      std::vector<int16_t> big(300000);
      w.recv(big.data(), big.size(), Datatype::int16, 1, 43);
      EXPECT_EQ(big[299999], 4);
    }
  });
}

TEST_P(P2p, SsendCompletesOnlyAfterMatch) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    int flag = 0;
    if (w.rank() == 0) {
      int v = 9;
      Request r = w.issend(&v, 1, Datatype::int32, 1, 0);
      for (int i = 0; i < 2000; ++i) EXPECT_FALSE(r.test());  // receiver has not posted
      w.send(&flag, 1, Datatype::int32, 1, 1);                // now let it post
      r.wait();
    } else {
      w.recv(&flag, 1, Datatype::int32, 0, 1);
      int v = 0;
      w.recv(&v, 1, Datatype::int32, 0, 0);
      EXPECT_EQ(v, 9);
    }
  });
}

TEST_P(P2p, CancelPendingReceive) {
  run(1, [](Runtime& rt) {
    Communicator w = rt.world();
    int v = 0;
    Request r = w.irecv(&v, 1, Datatype::int32, 0, 7);
    r.cancel();
    Status st = r.wait();
    EXPECT_TRUE(st.cancelled);
    int x = 5;  // a later message must still be receivable
    w.send(&x, 1, Datatype::int32, 0, 7);
    w.recv(&v, 1, Datatype::int32, 0, 7);
    EXPECT_EQ(v, 5);
  });
}

TEST_P(P2p, TruncationIsAnErrorNamingSizes) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    for (size_t n : {size_t(10), size_t(100000)}) {
      if (w.rank() == 0) {
        std::vector<int32_t> v(n, 1);
        w.send(v.data(), n, Datatype::int32, 1, 0);
      } else {
        std::vector<int32_t> v(n / 2);
        try {
          w.recv(v.data(), v.size(), Datatype::int32, 0, 0);
          ADD_FAILURE() << "no truncation error";
        } catch (const TruncationError& e) {
          EXPECT_NE(std::string(e.what()).find(std::to_string(n * 4)), std::string::npos) << e.what();
          EXPECT_EQ(e.code(), Errc::truncated);
        }
      }
    }
  });
}

TEST_P(P2p, SplitAndDupIsolateTraffic) {
  run(4, [](Runtime& rt) {
    Communicator w = rt.world();
    Communicator half = w.split(w.rank() % 2, -w.rank());  // key reverses order
    ASSERT_EQ(half.size(), 2);
    EXPECT_EQ(half.rank(), w.rank() < 2 ? 1 : 0);
    Communicator d = w.dup();
    EXPECT_NE(d.id(), w.id());
    EXPECT_EQ(d.rank(), w.rank());
    // Same tag on world and dup: each receive sees only its communicator's message.
    if (w.rank() == 0) {
      int a = 1, b = 2;
      w.send(&a, 1, Datatype::int32, 1, 0);
      d.send(&b, 1, Datatype::int32, 1, 0);
    } else if (w.rank() == 1) {
      int x = 0;
      d.recv(&x, 1, Datatype::int32, 0, 0);
      EXPECT_EQ(x, 2);
      w.recv(&x, 1, Datatype::int32, 0, 0);
      EXPECT_EQ(x, 1);
    }
    int mine = w.rank(), other = -1;
    half.sendrecv(&mine, 1, Datatype::int32, 1 - half.rank(), 0, &other, 1, Datatype::int32,
                  1 - half.rank(), 0);
    EXPECT_EQ(other % 2, w.rank() % 2);
    EXPECT_NE(other, w.rank());
    Communicator none = w.split(w.rank() == 3 ? UNDEFINED : 0, 0);
    EXPECT_EQ(none.is_null(), w.rank() == 3);
    if (!none.is_null()) EXPECT_EQ(none.size(), 3);
    d.free();
    EXPECT_TRUE(d.is_null());
  });
}

TEST_P(P2p, SelfCommunicatorAndSelfSend) {
  run(2, [](Runtime& rt) {
    Communicator s = rt.self();
    EXPECT_EQ(s.size(), 1);
    std::vector<int> v(100000, rt.world().rank()), got(100000);
    Request r = s.irecv(got.data(), got.size(), Datatype::int32, 0, 0);
    s.send(v.data(), v.size(), Datatype::int32, 0, 0);
    r.wait();
    EXPECT_EQ(got, v);
  });
}

INSTANTIATE_TEST_SUITE_P(Fabrics, P2p, ::testing::Values(0, 1, 2, 3),
                         [](const auto& info) {
                           const Variant& v = kVariants[info.param];
                           return std::string(v.fabric) + (v.single_copy[0] == '1' ? "" : "_copy");
                         });

}  // namespace
