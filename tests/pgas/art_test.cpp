// Automatic result transfer (FSHMEM III-B), ranks as threads on shm and tcp: exact
// values from producer kernels, batch boundaries, a ring with credit flow control, the
// producer-issue mode, bad input, and the C API.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/engine/context.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/pgas.h"
#include "interlace/pgas/result_transfer.hpp"

using namespace interlace;
using pgas::ArtOptions;
using pgas::ResultStream;

namespace {
class Art : public ::testing::TestWithParam<const char*> {};

void barrier(Runtime& rt, pgas::Pgas& p) {
  p.quiet_all();
  coll::barrier(rt.world());
}

int64_t value_of(int rank, uint64_t i) { return rank * 1000003 + static_cast<int64_t>(i) * 7; }

// Ranks 1..n-1 each run a producer kernel into their own slice of rank 0's array,
// all adding to one signal; a small staging ring makes the producers wait for their
// owner to drain.
TEST_P(Art, KernelsDeliverExactValuesWithSharedSignal) {
  run_ranks_as_threads(3, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 8 << 20);
    const size_t per = 10007, batch = 64;
    const int producers = p.n_pes() - 1;
    auto* out = static_cast<int64_t*>(p.malloc(per * producers * sizeof(int64_t)));
    auto* sig = static_cast<uint64_t*>(p.malloc(8));
    *sig = 0;
    barrier(rt, p);
    const int me = p.my_pe();
    if (me == 0) {
      const uint64_t got = pgas::wait_results(p, sig, per * producers);
      EXPECT_EQ(got, per * producers);
      for (int r = 1; r <= producers; ++r)
        for (size_t i = 0; i < per; ++i)
          ASSERT_EQ(out[(r - 1) * per + i], value_of(r, i)) << "rank " << r << " element " << i;
    } else {
      ArtOptions o;
      o.op = pgas::SignalOp::add;
      o.stage = 2 * batch;
      ResultStream<int64_t> art(p, out + (me - 1) * per, per, 0, batch, sig, o);
      std::thread kernel([&] {
        for (size_t i = 0; i < per; ++i) art.emit(value_of(me, i));
        art.close();
      });
      art.finish();
      kernel.join();
      EXPECT_EQ(art.transfer().transferred(), per);
    }
    barrier(rt, p);
  }, GetParam());
}

// One thread plays producer and owner, so every step is deterministic: nothing moves
// before a batch is full, a full batch moves as a whole, flush sends the rest.
TEST_P(Art, SignalAdvancesByBatches) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 1 << 20);
    auto* out = static_cast<int32_t*>(p.malloc(16 * sizeof(int32_t)));
    auto* sig = static_cast<uint64_t*>(p.malloc(8));
    *sig = 0;
    barrier(rt, p);
    std::vector<int32_t> v(9);
    for (int i = 0; i < 9; ++i) v[i] = 100 + i;
    if (p.my_pe() == 1) {
      ResultStream<int32_t> art(p, out, 16, 0, 4, sig);
      art.emit(std::span<const int32_t>(v.data(), 3));
      art.poll();
      EXPECT_EQ(art.transfer().transferred(), 0u);
      barrier(rt, p);  // A
      barrier(rt, p);  // A2: rank 0 saw nothing
      art.emit(v[3]);
      art.poll();
      EXPECT_EQ(art.transfer().transferred(), 4u);
      barrier(rt, p);  // B
      art.emit(std::span<const int32_t>(v.data() + 4, 5));
      art.poll();
      EXPECT_EQ(art.transfer().transferred(), 8u);
      barrier(rt, p);  // C
      barrier(rt, p);  // D: rank 0 checked the 8
      art.close();
      art.finish();
      EXPECT_EQ(art.transfer().transferred(), 9u);
    } else {
      barrier(rt, p);  // A
      EXPECT_EQ(p.signal_fetch(sig), 0u);
      barrier(rt, p);  // A2
      EXPECT_EQ(pgas::wait_results(p, sig, 4), 4u);
      for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], 100 + i);
      barrier(rt, p);  // B
      barrier(rt, p);  // C
      EXPECT_EQ(pgas::wait_results(p, sig, 8), 8u);
      barrier(rt, p);  // D
      EXPECT_EQ(pgas::wait_results(p, sig, 9), 9u);
      for (int i = 0; i < 9; ++i) EXPECT_EQ(out[i], 100 + i);
    }
    barrier(rt, p);
  }, GetParam());
}

// Capacity 8 with batches of 3: pieces are cut where the ring wraps, and the producer
// never overwrites what the consumer has not released.
TEST_P(Art, RingWithCreditWrapsWithoutOverwriting) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 1 << 20);
    const size_t cap = 8, total = 1000;
    auto* ring = static_cast<int64_t*>(p.malloc(cap * sizeof(int64_t)));
    auto* sig = static_cast<uint64_t*>(p.malloc(8));
    auto* credit = static_cast<uint64_t*>(p.malloc(8));
    *sig = 0;
    *credit = 0;
    barrier(rt, p);
    if (p.my_pe() == 0) {
      for (uint64_t i = 0; i < total; ++i) {
        pgas::wait_results(p, sig, i + 1);
        ASSERT_EQ(ring[i % cap], value_of(1, i)) << "element " << i;
        if (i % 5 == 4 || i + 1 == total) pgas::release_results(p, credit, i + 1, 1);
      }
    } else {
      ArtOptions o;
      o.credit = credit;
      o.stage = 5;
      ResultStream<int64_t> art(p, ring, cap, 0, 3, sig, o);
      std::thread kernel([&] {
        for (uint64_t i = 0; i < total; ++i) art.emit(value_of(1, i));
        art.close();
      });
      art.finish();
      kernel.join();
    }
    barrier(rt, p);
  }, GetParam());
}

// A rank that computes for itself and consumes: its own transfer is drained by
// wait_results while its kernel runs.
TEST_P(Art, ProducerAndConsumerOnOneRank) {
  run_ranks_as_threads(1, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 1 << 20);
    const size_t n = 5000;
    auto* out = static_cast<double*>(p.malloc(n * sizeof(double)));
    auto* sig = static_cast<uint64_t*>(p.malloc(8));
    *sig = 0;
    ArtOptions o;
    o.stage = 16;
    ResultStream<double> art(p, out, n, 0, 7, sig, o);
    std::thread kernel([&] {
      for (size_t i = 0; i < n; ++i) art.emit(0.5 * static_cast<double>(i));
      art.close();
    });
    EXPECT_EQ(pgas::wait_results(p, sig, n), n);
    art.finish();
    kernel.join();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 0.5 * static_cast<double>(i));
  }, GetParam());
}

struct ProgressThread {
  ProgressThread() { setenv("INTERLACE_PROGRESS", "thread", 1); }
  ~ProgressThread() { unsetenv("INTERLACE_PROGRESS"); }
};

TEST_P(Art, ProducerIssuesWithProgressThread) {
  ProgressThread mode;
  run_ranks_as_threads(2, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 1 << 20);
    const size_t n = 3001;
    auto* out = static_cast<int32_t*>(p.malloc(n * sizeof(int32_t)));
    auto* sig = static_cast<uint64_t*>(p.malloc(8));
    *sig = 0;
    barrier(rt, p);
    if (p.my_pe() == 0) {
      EXPECT_EQ(pgas::wait_results(p, sig, n), n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], static_cast<int32_t>(i * 3));
    } else {
      ArtOptions o;
      o.issue = pgas::ArtIssue::producer;
      ResultStream<int32_t> art(p, out, n, 0, 100, sig, o);
      std::thread kernel([&] {
        for (size_t i = 0; i < n; ++i) art.emit(static_cast<int32_t>(i * 3));
        art.close();
      });
      kernel.join();
      art.finish();
    }
    barrier(rt, p);
  }, GetParam());
}

template <class F>
void expect_error(F&& fn, Errc code, std::initializer_list<const char*> words) {
  try {
    fn();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const char* w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
  }
}

TEST_P(Art, BadInputNamesTheValue) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 1 << 20);
    auto* out = static_cast<int32_t*>(p.malloc(16 * sizeof(int32_t)));
    auto* sig = static_cast<uint64_t*>(p.malloc(8));
    *sig = 0;
    std::vector<int32_t> private_buf(16);
    uint64_t private_sig = 0;
    using RS = ResultStream<int32_t>;
    expect_error([&] { RS(p, out, 16, 0, 0, sig); }, Errc::invalid_argument, {"batch 0"});
    expect_error([&] { RS(p, out, 3, 0, 4, sig); }, Errc::invalid_count, {"capacity 3", "batch 4"});
    expect_error([&] { RS(p, private_buf.data(), 16, 0, 4, sig); }, Errc::invalid_argument,
                 {"destination", "not symmetric"});
    expect_error([&] { RS(p, out, 17 << 20, 0, 4, sig); }, Errc::invalid_argument, {"not symmetric"});
    expect_error([&] { RS(p, out, 16, 0, 4, &private_sig); }, Errc::invalid_argument, {"signal", "not symmetric"});
    expect_error([&] { RS(p, out, 16, 7, 4, sig); }, Errc::invalid_rank, {"PE 7"});
    expect_error([&] { RS(p, out, 16, -1, 4, sig); }, Errc::invalid_rank, {"PE -1"});
    ArtOptions o;
    o.issue = pgas::ArtIssue::producer;
    // (Over tcp, PGAS starts the progress thread by default: then producer mode is fine.)
    if (!rt.context().lock().enabled())
      expect_error([&] { RS(p, out, 16, 0, 4, sig, o); }, Errc::invalid_argument, {"INTERLACE_PROGRESS=thread"});
    o = {};
    o.stage = 2;
    expect_error([&] { RS(p, out, 16, 0, 4, sig, o); }, Errc::invalid_count, {"staging buffer of 2", "batch 4"});
    expect_error([&] { pgas::wait_results(p, &private_sig, 1); }, Errc::invalid_argument, {"wait_results"});
    {
      // Past the capacity without a credit word: the producer and finish() both fail.
      RS art(p, out, 16, p.my_pe(), 4, sig);
      std::vector<int32_t> v(17, 1);
      expect_error([&] { art.emit(std::span<const int32_t>(v)); }, Errc::invalid_count,
                   {"17", "capacity 16"});
      expect_error([&] { art.finish(); }, Errc::invalid_count, {"capacity 16"});
    }
    {
      RS art(p, out, 16, p.my_pe(), 4, sig);
      art.close();
      expect_error([&] { art.emit(1); }, Errc::invalid_argument, {"after close"});
      art.finish();
    }
    // A timeout returns what arrived.
    EXPECT_EQ(pgas::wait_results(p, sig, 1u << 30, 0.05), p.signal_fetch(sig));
    barrier(rt, p);
  }, GetParam());
}

TEST_P(Art, CApiRoundTrip) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 1 << 20);
    pgas::set_current(&p);
    const size_t n = 777;
    auto* out = static_cast<float*>(p.malloc(n * sizeof(float)));
    auto* sig = static_cast<uint64_t*>(p.malloc(8));
    *sig = 0;
    barrier(rt, p);
    il_art_t bad = nullptr;
    EXPECT_EQ(il_art_create(out, sizeof(float), n, 0, 0, sig, &bad), static_cast<int>(Errc::invalid_argument));
    EXPECT_EQ(bad, nullptr);
    EXPECT_NE(std::string(il_art_last_error()).find("batch 0"), std::string::npos) << il_art_last_error();
    EXPECT_EQ(il_art_emit(nullptr, out, 1), static_cast<int>(Errc::invalid_argument));
    il_art_options o{};
    o.signal_op = 9;
    EXPECT_EQ(il_art_create_opts(out, 4, n, 0, 4, sig, &o, &bad), static_cast<int>(Errc::invalid_argument));
    EXPECT_NE(std::string(il_art_last_error()).find("signal_op 9"), std::string::npos);
    if (p.my_pe() == 0) {
      uint64_t v = 0;
      EXPECT_EQ(il_art_wait_results(sig, n, -1, &v), IL_ART_OK);
      EXPECT_EQ(v, n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], static_cast<float>(i) + 0.25f);
    } else {
      il_art_t art = nullptr;
      ASSERT_EQ(il_art_create(out, sizeof(float), n, 0, 50, sig, &art), IL_ART_OK) << il_art_last_error();
      std::thread kernel([&] {
        for (size_t i = 0; i < n; ++i) {
          const float x = static_cast<float>(i) + 0.25f;
          ASSERT_EQ(il_art_emit(art, &x, 1), IL_ART_OK);
        }
        il_art_close(art);
      });
      EXPECT_EQ(il_art_finish(art), IL_ART_OK) << il_art_last_error();
      kernel.join();
      EXPECT_EQ(il_art_transferred(art), n);
      il_art_destroy(art);
    }
    barrier(rt, p);
    pgas::set_current(nullptr);
  }, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Fabrics, Art, ::testing::Values("shm", "tcp"));
}  // namespace
