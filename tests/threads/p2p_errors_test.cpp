// Bad input and misuse give clear errors naming the bad value.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "interlace/interlace.hpp"

using namespace interlace;

namespace {

template <class F>
void expect_error(Errc code, const std::string& needle, F&& f) {
  try {
    f();
    ADD_FAILURE() << "expected " << errc_name(code);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "'" << e.what() << "' does not mention '" << needle << "'";
  }
}

TEST(P2pErrors, InvalidArgumentsNameTheValue) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    int v = 0;
    expect_error(Errc::invalid_rank, "rank 2", [&] { w.send(&v, 1, Datatype::int32, 2, 0); });
    expect_error(Errc::invalid_rank, "rank -7", [&] { w.send(&v, 1, Datatype::int32, -7, 0); });
    expect_error(Errc::invalid_rank, "rank 5", [&] { w.recv(&v, 1, Datatype::int32, 5, 0); });
    expect_error(Errc::invalid_tag, "tag -3", [&] { w.send(&v, 1, Datatype::int32, 1, -3); });
    expect_error(Errc::invalid_tag, "tag -1", [&] { w.send(&v, 1, Datatype::int32, 1, ANY_TAG); });
    expect_error(Errc::invalid_tag, "tag -9", [&] { w.irecv(&v, 1, Datatype::int32, 1, -9); });
    expect_error(Errc::invalid_datatype, "datatype code 77",
                 [&] { w.send(&v, 1, static_cast<Datatype>(77), 1, 0); });
    expect_error(Errc::invalid_argument, "count is 4",
                 [&] { w.send(nullptr, 4, Datatype::int32, 1, 0); });
    expect_error(Errc::invalid_count, "count", [&] { w.send(&v, ~size_t(0) / 2, Datatype::int64, 1, 0); });
    expect_error(Errc::invalid_argument, "color -5", [&] { w.split(-5, 0); });
    Communicator null;
    expect_error(Errc::invalid_comm, "null communicator", [&] { null.send(&v, 1, Datatype::int32, 0, 0); });
    expect_error(Errc::invalid_comm, "cannot be freed", [&] { w.free(); });
    // PROC_NULL is a valid no-op peer.
    w.send(&v, 1, Datatype::int32, PROC_NULL, 0);
    Status st = w.recv(&v, 1, Datatype::int32, PROC_NULL, 0);
    EXPECT_EQ(st.source, PROC_NULL);
    EXPECT_EQ(st.bytes, 0u);
  });
}

TEST(P2pErrors, FreedCommunicatorAndUseAfterFinalize) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    Communicator d = w.dup();
    Communicator keep = d;  // a second handle to the same communicator
    d.free();
    int v = 0;
    expect_error(Errc::invalid_comm, "freed", [&] { keep.send(&v, 1, Datatype::int32, 0, 0); });
    Request pending = w.irecv(&v, 1, Datatype::int32, ANY_SOURCE, 99);
    pending.cancel();
    pending.wait();
    rt.finalize();
    expect_error(Errc::finalized, "finalize", [&] { w.send(&v, 1, Datatype::int32, 0, 0); });
    expect_error(Errc::finalized, "finalize", [&] { rt.world(); });
    expect_error(Errc::finalized, "finalize", [&] { pending.wait(); });
  });
}

}  // namespace

namespace {
TEST(P2pErrors, OperationTimeoutRaisesTimeoutError) {
  setenv("INTERLACE_TIMEOUT", "0.3", 1);
  // Rank 1 stays up (silent, not finalized): a finalized rank is a lost peer, not a slow one.
  std::atomic<bool> done{false};
  run_ranks_as_threads(2, [&done](Runtime& rt) {
    Communicator w = rt.world();
    int v = 0;
    if (w.rank() == 1) {
      while (!done.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    } else {
      struct Release { std::atomic<bool>& d; ~Release() { d.store(true); } } release{done};
      const auto t0 = std::chrono::steady_clock::now();
      expect_error(Errc::timeout, "INTERLACE_TIMEOUT", [&] { w.recv(&v, 1, Datatype::int32, 1, 0); });
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      EXPECT_GE(s, 0.25);
      EXPECT_LT(s, 5.0);
      expect_error(Errc::timeout, "INTERLACE_TIMEOUT", [&] { w.probe(1, 3); });
    }
  });
  unsetenv("INTERLACE_TIMEOUT");
}
}  // namespace
