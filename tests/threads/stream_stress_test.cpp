// Randomised streaming traffic between 4 ranks: many channels of random lengths,
// degrees and ports, eager and credit-based, self channels included. Every element
// carries (channel, index); the receivers count lost, duplicated/reordered and
// misrouted elements themselves, and all counts must be zero.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <random>
#include <vector>

#include "interlace/interlace.hpp"
#include "interlace/stream/channel.hpp"

using namespace interlace;

namespace {

struct Plan {
  int src, dst, port;
  size_t count, degree;
  int64_t id;
};

int64_t value(int64_t id, size_t i) { return id << 32 | static_cast<int64_t>(i); }

struct Tally {
  std::atomic<long> lost{0}, reordered{0}, misrouted{0}, elements{0};
};

// Checks one popped element against the expected index of its channel.
void check(Tally& t, const Plan& p, size_t& next, int64_t v) {
  if ((v >> 32) != p.id) { ++t.misrouted; return; }
  const size_t i = static_cast<size_t>(v & 0xffffffff);
  if (i > next) t.lost += static_cast<long>(i - next);
  if (i < next) ++t.reordered;
  next = i + 1;
  ++t.elements;
}

// Tiny degrees cost a round trip per element or two, so they get short channels.
size_t pick_degree(std::mt19937_64& g, size_t count) {
  const size_t opts[] = {1, 2, 5, 16, 100, 1000, count, count + 7};
  const size_t k = opts[g() % 8];
  return count > 300 && k < 16 ? 16 : k;
}

void run_stress(const char* fabric, uint64_t seed) {
  constexpr int kRanks = 4;
  std::mt19937_64 g(seed);
  // Phase A: eager channels in any pattern (senders never wait for receivers).
  std::vector<Plan> eager;
  for (int c = 0; c < 80; ++c) {
    Plan p{static_cast<int>(g() % kRanks), static_cast<int>(g() % kRanks), static_cast<int>(g() % 4),
           g() % 8 == 0 ? g() % 40000 : g() % 1500, 0, c + 1};
    p.degree = p.count + g() % 3;
    eager.push_back(p);
  }
  // Phase B: credit-based channels between the partners of a random pairing per
  // round, driven in lockstep (push i, then pop i), which cannot deadlock.
  std::vector<std::vector<Plan>> rounds;
  int64_t id = 1000;
  for (int round = 0; round < 6; ++round) {
    int perm[kRanks] = {0, 1, 2, 3};
    std::shuffle(perm, perm + kRanks, g);
    std::vector<Plan> r;
    for (int pair = 0; pair < kRanks; pair += 2) {
      int a = perm[pair], b = round % 3 == 2 ? perm[pair] : perm[pair + 1];  // some self rounds
      for (int dir = 0; dir < 2; ++dir) {
        const int nch = 1 + static_cast<int>(g() % 3);
        for (int c = 0; c < nch; ++c) {
          Plan p{dir ? b : a, dir ? a : b, static_cast<int>(g() % 3), g() % 4 == 0 ? g() % 20000 : g() % 400, 0, ++id};
          p.degree = pick_degree(g, p.count);
          r.push_back(p);
        }
      }
      if (round % 3 == 2) {  // the second member of the pair talks to itself too
        Plan p{perm[pair + 1], perm[pair + 1], 9, g() % 2000, 0, ++id};
        p.degree = pick_degree(g, p.count);
        r.push_back(p);
      }
    }
    rounds.push_back(r);
  }

  Tally t;
  long expected = 0;
  for (auto& p : eager) expected += static_cast<long>(p.count);
  for (auto& r : rounds) for (auto& p : r) expected += static_cast<long>(p.count);

  run_ranks_as_threads(kRanks, [&](Runtime& rt) {
    Communicator w = rt.world();
    const int me = w.rank();
    for (const Plan& p : eager) {
      if (p.src != me) continue;
      stream::Sender<int64_t> s(w, p.dst, p.port, p.count, p.degree);
      for (size_t i = 0; i < p.count; ++i) s.push(value(p.id, i));
    }
    for (const Plan& p : eager) {
      if (p.dst != me) continue;
      stream::Receiver<int64_t> r(w, p.src, p.port, p.count, p.degree);
      size_t next = 0;
      for (size_t i = 0; i < p.count; ++i) check(t, p, next, r.pop());
      if (next < p.count) t.lost += static_cast<long>(p.count - next);
    }
    for (const auto& round : rounds) {
      std::vector<stream::Sender<int64_t>> outs;
      std::vector<stream::Receiver<int64_t>> ins;
      std::vector<const Plan*> out_plan, in_plan;
      size_t longest = 0;
      for (const Plan& p : round) {
        if (p.src == me) { outs.emplace_back(w, p.dst, p.port, p.count, p.degree); out_plan.push_back(&p); }
        if (p.dst == me) { ins.emplace_back(w, p.src, p.port, p.count, p.degree); in_plan.push_back(&p); }
        if (p.src == me || p.dst == me) longest = std::max(longest, p.count);
      }
      std::vector<size_t> next(ins.size(), 0);
      for (size_t i = 0; i < longest; ++i) {
        for (size_t c = 0; c < outs.size(); ++c)
          if (i < out_plan[c]->count) outs[c].push(value(out_plan[c]->id, i));
        for (size_t c = 0; c < ins.size(); ++c)
          if (i < in_plan[c]->count) check(t, *in_plan[c], next[c], ins[c].pop());
      }
    }
  }, fabric);

  EXPECT_EQ(t.lost.load(), 0) << "lost elements (seed " << seed << ")";
  EXPECT_EQ(t.reordered.load(), 0) << "duplicated or reordered elements (seed " << seed << ")";
  EXPECT_EQ(t.misrouted.load(), 0) << "elements of another channel (seed " << seed << ")";
  EXPECT_EQ(t.elements.load(), expected) << "seed " << seed;
}

uint64_t seed_from_env(uint64_t dflt) {
  const char* s = std::getenv("INTERLACE_STREAM_SEED");
  return s ? std::strtoull(s, nullptr, 10) : dflt;
}

TEST(StreamStress, RandomChannelsShm) { run_stress("shm", seed_from_env(20240611)); }
TEST(StreamStress, RandomChannelsTcp) { run_stress("tcp", seed_from_env(77)); }

}  // namespace
