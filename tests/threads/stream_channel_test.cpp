// Streaming channels (SMI model) with ranks as threads, on shm and tcp.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "interlace/interlace.hpp"
#include "interlace/stream/channel.hpp"

using namespace interlace;
using stream::Receiver;
using stream::Sender;

namespace {

class Stream : public ::testing::TestWithParam<const char*> {
 protected:
  void run(int n, const std::function<void(Runtime&)>& fn) { run_ranks_as_threads(n, fn, GetParam()); }
};

// Spins (yielding) until f() holds; fails the test after 20 s instead of hanging.
template <class F>
bool spin_until(F f) {
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!f()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST_P(Stream, ElementsArriveInOrderCreditAndEager) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    // Degree 1 costs a round trip per element, so it gets a short channel.
    const size_t cases[][2] = {{1, 2000}, {7, 20000}, {1000, 200000}, {300000, 200000}};
    for (auto [degree, n] : cases) {
      if (w.rank() == 0) {
        Sender<int32_t> s(w, 1, 0, n, degree);
        EXPECT_EQ(s.channel().eager(), degree >= n);
        for (size_t i = 0; i < n; ++i) s.push(static_cast<int32_t>(i * 3));
        EXPECT_TRUE(s.closed());
      } else {
        Receiver<int32_t> r(w, 0, 0, n, degree);
        size_t bad = 0;
        for (size_t i = 0; i < n; ++i) bad += r.pop() != static_cast<int32_t>(i * 3);
        EXPECT_EQ(bad, 0u) << "degree " << degree;
        EXPECT_TRUE(r.closed());
      }
    }
  });
}

// The sender's push of element k+1 cannot complete before the receiver popped one:
// before popping element i the receiver checks that at most i + k pushes completed.
TEST_P(Stream, SenderStallsAfterDegreeElements) {
  std::atomic<size_t> pushed{0};
  run(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    const size_t k = 8, n = 64;
    if (w.rank() == 0) {
      Sender<int64_t> s(w, 1, 3, n, k);
      for (size_t i = 0; i < n; ++i) {
        s.push(static_cast<int64_t>(i));
        pushed.store(i + 1);
      }
    } else {
      Receiver<int64_t> r(w, 0, 3, n, k);
      ASSERT_TRUE(spin_until([&] { return pushed.load() >= k; }));
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      EXPECT_EQ(pushed.load(), k) << "the sender ran more than k ahead";
      for (size_t i = 0; i < n; ++i) {
        EXPECT_LE(pushed.load(), i + k) << "before pop " << i;
        EXPECT_EQ(r.pop(), static_cast<int64_t>(i));
      }
    }
  });
}

TEST_P(Stream, EagerSenderFinishesBeforeReceiverOpens) {
  std::atomic<bool> done{false};
  run(2, [&](Runtime& rt) {
    Communicator w = rt.world();
    const size_t n = 5000;  // 20 KB: within the fabric's buffering
    if (w.rank() == 0) {
      Sender<float> s(w, 1, 9, n, n);
      for (size_t i = 0; i < n; ++i) s.push(static_cast<float>(i) + 0.5f);
      done.store(true);
    } else {
      ASSERT_TRUE(spin_until([&] { return done.load(); }));
      Receiver<float> r(w, 0, 9, n, n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(r.pop(), static_cast<float>(i) + 0.5f);
    }
  });
}

TEST_P(Stream, ConsecutiveChannelsOnOnePortAreSeparate) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    for (int c = 0; c < 200; ++c) {
      const bool big = c % 50 == 0;
      const size_t n = static_cast<size_t>(c % 13) + (big ? 20000 : 1);
      const size_t k = c % 3 == 0 ? n : big ? 1000 : static_cast<size_t>(c % 5 + 1);
      if (w.rank() == 0) {
        Sender<int32_t> s(w, 1, 5, n, k);
        for (size_t i = 0; i < n; ++i) s.push(c * 100000 + static_cast<int32_t>(i));
      } else {
        Receiver<int32_t> r(w, 0, 5, n, k);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(r.pop(), c * 100000 + static_cast<int32_t>(i)) << "channel " << c;
      }
    }
  });
}

TEST_P(Stream, ManyPortsAtOnce) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    const int ports = 24;
    const size_t n = 300;
    if (w.rank() == 0) {
      std::vector<Sender<int32_t>> eager, credit;
      for (int p = 0; p < ports; ++p) eager.emplace_back(w, 1, p, n, n);
      for (int p = 0; p < ports; ++p) credit.emplace_back(w, 1, 100 + p, n, 4);
      for (size_t i = 0; i < n; ++i)
        for (int p = 0; p < ports; ++p) {
          eager[p].push(p * 1000 + static_cast<int32_t>(i));
          credit[p].push(-p * 1000 - static_cast<int32_t>(i));
        }
    } else {
      std::vector<Receiver<int32_t>> eager, credit;
      for (int p = 0; p < ports; ++p) eager.emplace_back(w, 0, p, n, n);
      for (int p = 0; p < ports; ++p) credit.emplace_back(w, 0, 100 + p, n, 4);
      // Credit channels in the sender's order; eager ones afterwards, last port first.
      for (size_t i = 0; i < n; ++i)
        for (int p = 0; p < ports; ++p) ASSERT_EQ(credit[p].pop(), -p * 1000 - static_cast<int32_t>(i));
      for (int p = ports - 1; p >= 0; --p)
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(eager[p].pop(), p * 1000 + static_cast<int32_t>(i));
    }
  });
}

TEST_P(Stream, SelfChannelsEagerAndCredit) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    const int me = w.rank();
    {
      Sender<double> s(w, me, 1, 100, 100);
      for (int i = 0; i < 100; ++i) s.push(i * 0.25);
      Receiver<double> r(w, me, 1, 100, 100);
      for (int i = 0; i < 100; ++i) ASSERT_EQ(r.pop(), i * 0.25);
    }
    // Credit mode with k = 10: push 10, pop 10, repeatedly.
    Receiver<int32_t> r(w, me, 2, 1000, 10);
    Sender<int32_t> s(w, me, 2, 1000, 10);
    for (int b = 0; b < 100; ++b) {
      for (int i = 0; i < 10; ++i) s.push(b * 10 + i);
      for (int i = 0; i < 10; ++i) ASSERT_EQ(r.pop(), b * 10 + i);
    }
  });
}

TEST_P(Stream, BulkPushPopMixedWithElementsAndFlush) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    const size_t n = 3'000'000;  // 12 MB of floats
    for (size_t k : {n, size_t{1} << 16}) {
      if (w.rank() == 0) {
        std::vector<int32_t> v(n);
        for (size_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(i ^ 0x5a5a);
        stream::SendChannel s(w, 1, 7, n, Datatype::int32, k);
        size_t i = 0, step = 1;
        while (i < n) {
          const size_t m = std::min(step, n - i);
          if (step % 3 == 0) {
            for (size_t j = 0; j < m; ++j) s.push(&v[i + j]);
            s.flush();
          } else {
            s.push_n(&v[i], m);
          }
          i += m;
          step = step * 7 % 1000003 + 1;
        }
        EXPECT_TRUE(s.closed());
      } else {
        std::vector<int32_t> got(n, -1);
        stream::RecvChannel r(w, 0, 7, n, Datatype::int32, k);
        size_t i = 0, step = 5;
        while (i < n) {
          const size_t m = std::min(step, n - i);
          if (step % 2 == 0) {
            for (size_t j = 0; j < m; ++j) r.pop(&got[i + j]);
          } else {
            r.pop_n(&got[i], m);
          }
          i += m;
          step = step * 11 % 700001 + 1;
        }
        size_t bad = 0;
        for (size_t j = 0; j < n; ++j) bad += got[j] != static_cast<int32_t>(j ^ 0x5a5a);
        EXPECT_EQ(bad, 0u) << "k " << k;
        EXPECT_EQ(r.remaining(), 0u);
      }
    }
  });
}

// A pipeline around a ring: every rank pushes element i to the right, then pops
// element i from the left. Partly filled packets go out when a rank blocks, so this
// cannot deadlock even though packets hold many elements.
TEST_P(Stream, RingPipelineDoesNotDeadlockOnPartialPackets) {
  run(3, [](Runtime& rt) {
    Communicator w = rt.world();
    const int n = w.size(), me = w.rank();
    const size_t count = 2000;
    Sender<int32_t> right(w, (me + 1) % n, 0, count, 64);
    Receiver<int32_t> left(w, (me + n - 1) % n, 0, count, 64);
    for (size_t i = 0; i < count; ++i) {
      right.push(static_cast<int32_t>(i) + me);
      ASSERT_EQ(left.pop(), static_cast<int32_t>(i) + (me + n - 1) % n);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Fabrics, Stream, ::testing::Values("shm", "tcp"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
