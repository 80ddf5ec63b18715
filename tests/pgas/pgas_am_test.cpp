// Active messages with GASNet-EX semantics, ranks as threads, on shm and tcp.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/core/error.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/pgas/am.hpp"

using namespace interlace;
using namespace interlace::pgas;

namespace {
class AmFabric : public ::testing::TestWithParam<const char*> {};

struct Seen {
  std::atomic<int> requests{0}, replies{0};
  std::atomic<uint64_t> arg_sum{0};
  std::vector<uint8_t> medium;
  int last_src = -1;
  std::string error, reply_error;
  std::vector<int> order;
};

void sum_args(Seen& s, const AmArg* a, unsigned n) {
  for (unsigned i = 0; i < n; ++i) s.arg_sum += a[i];
}

void on_reply(Token& t, void*, size_t, const AmArg* a, unsigned n, void* u) {
  auto& s = *static_cast<Seen*>(u);
  sum_args(s, a, n);
  // A reply handler may not communicate.
  try {
    reply_short(t, 130, {});
  } catch (const Error& e) {
    s.reply_error = e.what();
  }
  ++s.replies;
}

void on_short(Token& t, void*, size_t nbytes, const AmArg* a, unsigned n, void* u) {
  auto& s = *static_cast<Seen*>(u);
  EXPECT_EQ(nbytes, 0u);
  sum_args(s, a, n);
  s.last_src = t.src;
  s.order.push_back(static_cast<int>(a[0]));
  ++s.requests;
  const AmArg r[2] = {a[0], 1000};
  reply_short(t, 129, r);
  try {  // at most one reply
    reply_short(t, 129, r);
  } catch (const Error& e) {
    s.error = e.what();
  }
}

void on_medium(Token& t, void* buf, size_t nbytes, const AmArg* a, unsigned n, void* u) {
  auto& s = *static_cast<Seen*>(u);
  s.medium.assign(static_cast<uint8_t*>(buf), static_cast<uint8_t*>(buf) + nbytes);
  ++s.requests;
}

void on_long(Token& t, void* buf, size_t nbytes, const AmArg* a, unsigned n, void* u) {
  auto& s = *static_cast<Seen*>(u);
  // The payload is already in place: the handler sees it at buf.
  s.medium.assign(static_cast<uint8_t*>(buf), static_cast<uint8_t*>(buf) + nbytes);
  ++s.requests;
}

TEST_P(AmFabric, ShortMediumLongAndReplies) {
  run_ranks_as_threads(3, [](Runtime& rt) {
    Pgas& p = Pgas::attach(rt, 1 << 20);
    Seen seen;
    EXPECT_EQ(register_handler(p, 128, on_short, &seen, "short"), 128u);
    EXPECT_EQ(register_handler(p, 129, on_reply, &seen, "reply"), 129u);
    EXPECT_EQ(register_handler(p, 131, on_medium, &seen), 131u);
    EXPECT_EQ(register_handler(p, 132, on_long, &seen), 132u);
    EXPECT_GE(p.max_medium(), kMinMaxMedium);
    auto* landing = static_cast<uint8_t*>(p.malloc(4096));
    coll::barrier(rt.world());
    const int me = p.my_pe(), n = p.n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    // 16 arguments, in order: the handler sees them in the order sent.
    for (int k = 0; k < 10; ++k) {
      AmArg args[kMaxArgs];
      for (unsigned i = 0; i < kMaxArgs; ++i) args[i] = i == 0 ? static_cast<AmArg>(k) : i;
      request_short(p, right, 128, args);
    }
    p.wait([&] { return seen.requests == 10 && seen.replies == 10; });
    EXPECT_EQ(seen.last_src, left);
    std::vector<int> want(10);
    for (int k = 0; k < 10; ++k) want[k] = k;
    EXPECT_EQ(seen.order, want);
    // requests: 10 * (k + 120) ; replies: 10 * (k + 1000)
    EXPECT_EQ(seen.arg_sum.load(), 2 * 45u + 10 * 120u + 10 * 1000u);
    EXPECT_NE(seen.error.find("already replied"), std::string::npos) << seen.error;
    EXPECT_NE(seen.reply_error.find("reply handler may not communicate"), std::string::npos);
    seen.requests = 0;  // before the barrier: after it, peers' messages may arrive
    coll::barrier(rt.world());

    std::vector<uint8_t> payload(p.max_medium());
    for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 7 + me);
    request_medium(p, right, 131, payload.data(), payload.size(), {});
    p.wait([&] { return seen.requests == 1; });
    ASSERT_EQ(seen.medium.size(), payload.size());
    EXPECT_EQ(seen.medium[5], static_cast<uint8_t>(35 + left));
    seen.requests = 0;
    coll::barrier(rt.world());

    request_long(p, right, 132, payload.data(), 4096, landing, {});
    p.wait([&] { return seen.requests == 1; });
    EXPECT_EQ(landing[100], static_cast<uint8_t>(700 + left));
    EXPECT_EQ(seen.medium.size(), 4096u);
    coll::barrier(rt.world());
  }, GetParam());
}

TEST_P(AmFabric, BadInputIsAnErrorNamingTheValue) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Pgas& p = Pgas::attach(rt, 1 << 20);
    Seen seen;
    auto what = [](auto&& f) {
      try {
        f();
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    EXPECT_NE(what([&] { register_handler(p, 5, on_short, &seen); }).find("index 5"), std::string::npos);
    EXPECT_NE(what([&] { request_short(p, 1 - p.my_pe(), 200, {}); }).find("200 is not registered"),
              std::string::npos);
    register_handler(p, 140, on_short, &seen);
    EXPECT_NE(what([&] { register_handler(p, 140, on_medium, &seen); }).find("already registered"),
              std::string::npos);
    EXPECT_NE(what([&] { request_short(p, 7, 140, {}); }).find("PE 7"), std::string::npos);
    std::vector<uint8_t> big(p.max_medium() + 1);
    EXPECT_NE(what([&] { request_medium(p, 0, 140, big.data(), big.size(), {}); })
                  .find(std::to_string(big.size())), std::string::npos);
    int local = 0;
    EXPECT_NE(what([&] { request_long(p, 0, 140, &local, 4, &local, {}); }).find("not symmetric"),
              std::string::npos);
    AmArg many[kMaxArgs + 1] = {};
    EXPECT_NE(what([&] { request_short(p, 0, 140, many); }).find("17 arguments"), std::string::npos);
    coll::barrier(rt.world());
  }, GetParam());
}

struct Blocker {
  Pgas* p = nullptr;
  std::string error;
  std::atomic<int> ran{0};
};

void blocking_handler(Token&, void*, size_t, const AmArg*, unsigned, void* u) {
  auto& b = *static_cast<Blocker*>(u);
  try {
    b.p->quiet(b.p->default_domain());
  } catch (const Error& e) {
    b.error = e.what();
  }
  ++b.ran;
}

TEST_P(AmFabric, HandlerThatBlocksGetsAnError) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Pgas& p = Pgas::attach(rt, 1 << 20);
    Blocker b;
    b.p = &p;
    register_handler(p, 150, blocking_handler, &b);
    coll::barrier(rt.world());
    request_short(p, 1 - p.my_pe(), 150, {});
    p.wait([&] { return b.ran == 1; });
    EXPECT_NE(b.error.find("active-message handler"), std::string::npos) << b.error;
    coll::barrier(rt.world());
  }, GetParam());
}

// Two PEs streaming medium requests at each other, whose handlers answer with medium
// replies: the rings fill both ways, so a sender waiting for room must keep serving
// what arrives (it once re-tried without progressing and both PEs waited forever).
void on_echo(Token& t, void* buf, size_t nbytes, const AmArg*, unsigned, void* u) {
  auto& s = *static_cast<Seen*>(u);
  ++s.requests;
  reply_medium(t, 134, buf, nbytes, {});
}

void on_echo_reply(Token&, void* buf, size_t nbytes, const AmArg*, unsigned, void* u) {
  auto& s = *static_cast<Seen*>(u);
  if (nbytes > 0 && static_cast<uint8_t*>(buf)[nbytes - 1] == 0x5a) ++s.replies;
}

TEST_P(AmFabric, MediumStreamsBothWaysDoNotDeadlock) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Pgas& p = Pgas::attach(rt, 1 << 20);
    Seen seen;
    register_handler(p, 133, on_echo, &seen);
    register_handler(p, 134, on_echo_reply, &seen);
    coll::barrier(rt.world());
    std::vector<uint8_t> payload(p.max_medium(), 0x5a);
    constexpr int kCount = 2000;  // several MiB each way: far beyond any ring
    for (int k = 0; k < kCount; ++k)
      request_medium(p, 1 - p.my_pe(), 133, payload.data(), payload.size(), {});
    p.wait([&] { return seen.requests == kCount && seen.replies == kCount; });
    EXPECT_EQ(seen.requests.load(), kCount);
    EXPECT_EQ(seen.replies.load(), kCount);
    coll::barrier(rt.world());
  }, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Fabrics, AmFabric, ::testing::Values("shm", "tcp"));
}  // namespace
