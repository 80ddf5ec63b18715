// Streaming channels: mismatches name both sides, misuse names the bad value, lost peers.
#include <gtest/gtest.h>

#include <string>

#include "interlace/interlace.hpp"
#include "interlace/stream/channel.hpp"

using namespace interlace;
using stream::Receiver;
using stream::RecvChannel;
using stream::SendChannel;
using stream::Sender;

namespace {

class StreamErrors : public ::testing::TestWithParam<const char*> {
 protected:
  void run(int n, const std::function<void(Runtime&)>& fn) { run_ranks_as_threads(n, fn, GetParam()); }
};

template <class F>
void expect_error(Errc code, const std::string& needle, F&& f) {
  try {
    f();
    ADD_FAILURE() << "expected " << errc_name(code) << " mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "'" << e.what() << "' does not mention '" << needle << "'";
  }
}

TEST_P(StreamErrors, DatatypeMismatchNamesBothSides) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    // Credit mode: both ends see it. Eager: the sender is done before anyone checks.
    for (size_t k : {size_t{10}, size_t{100}}) {
      if (w.rank() == 0) {
        Sender<int32_t> s(w, 1, 3, 100, k);
        if (k < 100) {
          expect_error(Errc::invalid_datatype,
                       "stream port 3 to rank 1: sender has 100 x int32, receiver expects 100 x float32",
                       [&] { for (int i = 0; i < 100; ++i) s.push(i); });
        } else {
          for (int i = 0; i < 100; ++i) s.push(i);
        }
      } else {
        Receiver<float> r(w, 0, 3, 100, k);
        expect_error(Errc::invalid_datatype,
                     "stream port 3 from rank 0: sender has 100 x int32, receiver expects 100 x float32",
                     [&] { r.pop(); });
      }
    }
  });
}

TEST_P(StreamErrors, CountMismatchNamesBothSides) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    if (w.rank() == 0) {
      Sender<double> s(w, 1, 4, 50, 8);
      expect_error(Errc::invalid_count, "sender has 50 x float64, receiver expects 60 x float64",
                   [&] { for (int i = 0; i < 50; ++i) s.push(i); });
    } else {
      Receiver<double> r(w, 0, 4, 60, 8);
      expect_error(Errc::invalid_count, "from rank 0: sender has 50 x float64, receiver expects 60 x float64",
                   [&] { r.pop(); });
    }
  });
}

TEST_P(StreamErrors, PushAndPopPastTheCount) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    int32_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    if (w.rank() == 0) {
      SendChannel s(w, 1, 0, 4, Datatype::int32, 2);
      expect_error(Errc::invalid_count, "push_n of 5 elements exceeds the 4 left of the count 4",
                   [&] { s.push_n(v, 5); });
      s.push_n(v, 4);
      EXPECT_TRUE(s.closed());
      expect_error(Errc::invalid_count, "push past the count 4", [&] { s.push(v); });
    } else {
      RecvChannel r(w, 0, 0, 4, Datatype::int32, 2);
      int32_t got[8] = {};
      expect_error(Errc::invalid_count, "pop_n of 6 elements exceeds the 4 left of the count 4",
                   [&] { r.pop_n(got, 6); });
      r.pop_n(got, 4);
      EXPECT_EQ(got[3], 4);
      expect_error(Errc::invalid_count, "pop past the count 4", [&] { r.pop(got); });
    }
  });
}

TEST_P(StreamErrors, BadArgumentsNameTheValue) {
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    expect_error(Errc::invalid_rank, "destination rank 2 is out of range",
                 [&] { SendChannel(w, 2, 0, 1, Datatype::int32, 1); });
    expect_error(Errc::invalid_rank, "source rank -1", [&] { RecvChannel(w, -1, 0, 1, Datatype::int32, 1); });
    expect_error(Errc::invalid_tag, "port -4", [&] { SendChannel(w, 0, -4, 1, Datatype::int32, 1); });
    expect_error(Errc::invalid_datatype, "datatype code 99",
                 [&] { RecvChannel(w, 0, 0, 1, static_cast<Datatype>(99), 1); });
    expect_error(Errc::invalid_comm, "null", [&] { SendChannel(Communicator{}, 0, 0, 1, Datatype::int32, 1); });
    SendChannel first(w, w.rank(), 0, 0, Datatype::int32, 0);
    SendChannel second = std::move(first);  // first is no longer open
    int v = 0;
    expect_error(Errc::invalid_argument, "not open", [&] { first.push(&v); });
    RecvChannel in(w, w.rank(), 0, 0, Datatype::int32, 0);
    RecvChannel keep = std::move(in);
    expect_error(Errc::invalid_argument, "not open", [&] { in.pop(&v); });
    expect_error(Errc::invalid_count, "push past the count 0", [&] { second.push(&v); });
  });
}

TEST_P(StreamErrors, LostPeerAfterItsDataIsDelivered) {
  // shm watches peer processes; ranks that are threads of one process never look lost.
  if (std::string(GetParam()) == "shm") GTEST_SKIP() << "lost peers need separate processes on shm";
  run(2, [](Runtime& rt) {
    Communicator w = rt.world();
    if (w.rank() == 1) {
      // Pushes half of an eager channel, flushes, and leaves (finalize closes its links).
      Sender<int32_t> s(w, 0, 2, 20, 20);
      for (int i = 0; i < 10; ++i) s.push(i);
      s.flush();
      return;
    }
    Receiver<int32_t> r(w, 1, 2, 20, 20);
    for (int i = 0; i < 10; ++i) ASSERT_EQ(r.pop(), i);
    expect_error(Errc::lost_peer, "rank 1 is lost", [&] { r.pop(); });
    // A credit-mode sender to the lost rank fails too, instead of waiting forever.
    Sender<int32_t> s(w, 1, 2, 100, 4);
    expect_error(Errc::lost_peer, "rank 1", [&] { for (int i = 0; i < 100; ++i) s.push(i); });
  });
}

INSTANTIATE_TEST_SUITE_P(Fabrics, StreamErrors, ::testing::Values("shm", "tcp"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
