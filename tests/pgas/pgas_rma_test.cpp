// The PGAS core over both fabrics, ranks as threads: put/get, atomics, put with
// signal, ordering and completion. Each test runs on shm (mapped heaps: direct
// stores) and tcp (active messages served by the target's progress).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <numeric>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/pgas/pgas.hpp"

using namespace interlace;
using pgas::AmoOp;
using pgas::AmoType;

namespace {
class PgasFabric : public ::testing::TestWithParam<const char*> {};

void barrier(Runtime& rt, pgas::Pgas& p) {
  p.quiet_all();
  coll::barrier(rt.world());
}

TEST_P(PgasFabric, PutGetRingAllSizes) {
  run_ranks_as_threads(3, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 8 << 20);
    const int me = p.my_pe(), n = p.n_pes(), right = (me + 1) % n;
    const size_t sizes[] = {1, 8, 100, 4096, 70000, 3 << 20};
    for (size_t bytes : sizes) {
      auto* buf = static_cast<unsigned char*>(p.malloc(bytes));
      std::vector<unsigned char> src(bytes);
      for (size_t i = 0; i < bytes; ++i) src[i] = static_cast<unsigned char>(me * 31 + i);
      barrier(rt, p);
      p.put(p.default_domain(), buf, src.data(), bytes, right);
      barrier(rt, p);
      const int left = (me + n - 1) % n;
      for (size_t i = 0; i < bytes; ++i)
        ASSERT_EQ(buf[i], static_cast<unsigned char>(left * 31 + i)) << bytes << " at " << i;
      std::vector<unsigned char> back(bytes);
      p.get(p.default_domain(), back.data(), buf, bytes, right);
      for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(back[i], static_cast<unsigned char>(me * 31 + i));
      barrier(rt, p);
      p.free(buf);
    }
  }, GetParam());
}

TEST_P(PgasFabric, FetchAddCountsExactly) {
  run_ranks_as_threads(4, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 1 << 20);
    auto* counter = static_cast<int64_t*>(p.malloc(8));
    *counter = 0;
    barrier(rt, p);
    const int64_t one = 1;
    std::vector<int64_t> seen;
    for (int i = 0; i < 200; ++i) {
      int64_t old = -1;
      p.atomic(p.default_domain(), AmoOp::fetch_add, AmoType::i64, counter, &one, nullptr, &old, 0);
      seen.push_back(old);
    }
    barrier(rt, p);
    if (p.my_pe() == 0) EXPECT_EQ(*counter, 4 * 200);
    for (size_t i = 1; i < seen.size(); ++i) EXPECT_LT(seen[i - 1], seen[i]);
    // Compare-and-swap: exactly one PE wins per round.
    auto* word = static_cast<int32_t*>(p.malloc(4));
    *word = 0;
    barrier(rt, p);
    int32_t expect = 0, mine = p.my_pe() + 1, old = -1;
    p.atomic(p.default_domain(), AmoOp::cswap, AmoType::i32, word, &mine, &expect, &old, 0);
    barrier(rt, p);
    int32_t final_v = 0;
    p.atomic(p.default_domain(), AmoOp::fetch, AmoType::i32, word, nullptr, nullptr, &final_v, 0);
    if (old == 0) EXPECT_EQ(final_v, mine);
    else EXPECT_NE(final_v, 0);
    barrier(rt, p);
  }, GetParam());
}

TEST_P(PgasFabric, PutSignalShowsDataFirst) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 8 << 20);
    const size_t n = 1 << 18;
    auto* data = static_cast<int*>(p.malloc(n * sizeof(int)));
    auto* sig = static_cast<uint64_t*>(p.malloc(8));
    *sig = 0;
    barrier(rt, p);
    for (int round = 1; round <= 20; ++round) {
      if (p.my_pe() == 0) {
        std::vector<int> v(n, round);
        p.put_signal(p.default_domain(), data, v.data(), n * sizeof(int), sig, 1,
                     pgas::SignalOp::add, 1);
        p.quiet(p.default_domain());
      } else {
        const uint64_t want = static_cast<uint64_t>(round);
        p.wait([&] { return pgas::compare(pgas::Cmp::ge, AmoType::u64, sig, &want); });
        ASSERT_EQ(data[0], round);
        ASSERT_EQ(data[n - 1], round);
      }
      barrier(rt, p);
    }
  }, GetParam());
}

TEST_P(PgasFabric, FenceOrdersPutsToOnePe) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 1 << 20);
    auto* data = static_cast<int64_t*>(p.malloc(8));
    auto* flag = static_cast<int64_t*>(p.malloc(8));
    *data = 0;
    *flag = 0;
    barrier(rt, p);
    for (int64_t r = 1; r <= 300; ++r) {
      if (p.my_pe() == 0) {
        p.put(p.default_domain(), data, &r, 8, 1);
        p.fence(p.default_domain());
        p.put(p.default_domain(), flag, &r, 8, 1);
      } else {
        // The sender runs ahead: flag >= r must imply data >= r (never an older one).
        p.wait([&] { return pgas::compare(pgas::Cmp::ge, AmoType::i64, flag, &r); });
        const int64_t f = std::atomic_ref<int64_t>(*flag).load();
        ASSERT_GE(std::atomic_ref<int64_t>(*data).load(), f);
      }
    }
    barrier(rt, p);
  }, GetParam());
}

TEST_P(PgasFabric, NbiGetCompletesAtQuiet) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    auto& p = pgas::Pgas::attach(rt, 1 << 20);
    auto* buf = static_cast<int*>(p.malloc(64 * sizeof(int)));
    for (int i = 0; i < 64; ++i) buf[i] = p.my_pe() * 1000 + i;
    barrier(rt, p);
    pgas::Domain d = p.create_domain();
    std::vector<int> out(64, -1);
    for (int i = 0; i < 64; ++i) p.get(d, &out[i], &buf[i], sizeof(int), 1 - p.my_pe(), true);
    p.quiet(d);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], (1 - p.my_pe()) * 1000 + i);
    p.destroy_domain(d);
    barrier(rt, p);
  }, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Fabrics, PgasFabric, ::testing::Values("shm", "tcp"));
}  // namespace
