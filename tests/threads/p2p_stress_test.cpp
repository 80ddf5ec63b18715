// Randomised traffic: many tags, sizes and communicators, every message checksummed.
// The test counts lost, duplicated and reordered messages itself; all must be zero.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "interlace/interlace.hpp"

using namespace interlace;

namespace {

struct Header {  // first bytes of every message
  int32_t src, seq, tag, comm;
  uint32_t len, checksum;
};

uint32_t checksum(const uint8_t* p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

// Every rank sends `per_rank` messages to random peers on random (comm, tag) pairs, with
// sizes spanning eager and rendezvous. Receivers learn how many to expect per stream from
// a count exchange, then receive with ANY_SOURCE/ANY_TAG and check sequence order.
void stress(Runtime& rt, int per_rank, unsigned seed) {
  Communicator world = rt.world();
  const int n = world.size(), me = world.rank();
  std::vector<Communicator> comms = {world, world.dup(), world.split(0, -me)};
  Communicator leave = world.dup();  // for the final handshake only
  const int ntags = 5;
  std::mt19937 rng(seed + me * 7919);
  std::vector<int> sizes = {24, 32, 100, 1000, 16000, 40000, 300000};

  // expected[comm][src][tag] computed from counts sent by every rank
  std::vector<int32_t> plan(n * comms.size() * ntags, 0);  // messages I send: [dst][c][tag]
  struct Msg { int dst, c, tag; size_t len; };
  std::vector<Msg> msgs;
  for (int i = 0; i < per_rank; ++i) {
    Msg m{static_cast<int>(rng() % n), static_cast<int>(rng() % comms.size()),
          static_cast<int>(rng() % ntags), static_cast<size_t>(sizes[rng() % sizes.size()])};
    msgs.push_back(m);
    plan[(m.dst * comms.size() + m.c) * ntags + m.tag]++;
  }
  // Tell every peer how many messages to expect from me per (comm, tag).
  std::vector<int32_t> incoming(n * comms.size() * ntags);
  const int per_peer = static_cast<int>(comms.size()) * ntags;
  std::vector<Request> rq;
  for (int p = 0; p < n; ++p) {
    rq.push_back(world.irecv(&incoming[p * per_peer], per_peer, Datatype::int32, p, 1000));
    rq.push_back(world.isend(&plan[p * per_peer], per_peer, Datatype::int32, p, 1000));
  }
  Request::wait_all(rq);
  rq.clear();

  std::vector<std::vector<uint8_t>> bufs;
  std::vector<int> seq_out(n * comms.size() * ntags, 0);
  for (const Msg& m : msgs) {
    std::vector<uint8_t> b(m.len);
    for (size_t i = sizeof(Header); i < m.len; ++i) b[i] = static_cast<uint8_t>(rng());
    Header h{me, seq_out[(m.dst * comms.size() + m.c) * ntags + m.tag]++, m.tag, m.c,
             static_cast<uint32_t>(m.len), 0};
    h.checksum = checksum(b.data() + sizeof h, m.len - sizeof h);
    std::memcpy(b.data(), &h, sizeof h);
    bufs.push_back(std::move(b));
    int dst = 0;  // the communicator rank of world rank m.dst
    while (comms[m.c].world_rank_of(dst) != m.dst) ++dst;
    rq.push_back(comms[m.c].isend(bufs.back().data(), m.len, Datatype::uint8, dst, m.tag));
  }
  long lost = 0, dup_or_reorder = 0, corrupt = 0;
  std::vector<uint8_t> in(300000);
  for (size_t c = 0; c < comms.size(); ++c) {
    int total = 0;
    std::vector<int> next(n * ntags, 0);
    for (int p = 0; p < n; ++p)
      for (int t = 0; t < ntags; ++t) total += incoming[p * per_peer + c * ntags + t];
    for (int k = 0; k < total; ++k) {
      Status st = comms[c].recv(in.data(), in.size(), Datatype::uint8, ANY_SOURCE, ANY_TAG);
      Header h;
      std::memcpy(&h, in.data(), sizeof h);
      const int src_world = h.src;
      if (h.len != st.bytes || checksum(in.data() + sizeof h, h.len - sizeof h) != h.checksum ||
          h.tag != st.tag || h.comm != static_cast<int>(c) ||
          comms[c].world_rank_of(st.source) != src_world) {
        ++corrupt;
        continue;
      }
      int& expect = next[src_world * ntags + h.tag];
      if (h.seq != expect) ++dup_or_reorder;
      expect = h.seq + 1;
    }
    for (int p = 0; p < n; ++p)
      for (int t = 0; t < ntags; ++t) lost += incoming[p * per_peer + c * ntags + t] - next[p * ntags + t];
  }
  Request::wait_all(rq);
  EXPECT_EQ(lost, 0) << "lost messages";
  EXPECT_EQ(dup_or_reorder, 0) << "duplicated or reordered messages";
  EXPECT_EQ(corrupt, 0) << "corrupted messages";
  // Nothing may be left over.
  for (auto& c : comms) EXPECT_FALSE(c.iprobe(ANY_SOURCE, ANY_TAG));
  // Leave together, so no peer finalizes while another still checks.
  std::vector<int> tokens(n);
  rq.clear();
  for (int p = 0; p < n; ++p) {
    rq.push_back(leave.irecv(&tokens[p], 1, Datatype::int32, p, 0));
    rq.push_back(leave.isend(&me, 1, Datatype::int32, p, 0));
  }
  Request::wait_all(rq);
}

TEST(P2pStress, RandomTrafficShm) {
  run_ranks_as_threads(4, [](Runtime& rt) { stress(rt, 300, 1); }, "shm");
}

TEST(P2pStress, RandomTrafficShmCopying) {
  setenv("INTERLACE_SHM_SINGLE_COPY", "0", 1);
  run_ranks_as_threads(3, [](Runtime& rt) { stress(rt, 200, 2); }, "shm");
  unsetenv("INTERLACE_SHM_SINGLE_COPY");
}

TEST(P2pStress, RandomTrafficTcp) {
  run_ranks_as_threads(3, [](Runtime& rt) { stress(rt, 200, 3); }, "tcp");
}

TEST(P2pStress, EightRanksSmallRing) {
  setenv("INTERLACE_SHM_RING_BYTES", "16k", 1);  // force a full ring and backlog often
  run_ranks_as_threads(8, [](Runtime& rt) { stress(rt, 100, 4); }, "shm");
  unsetenv("INTERLACE_SHM_RING_BYTES");
}

}  // namespace
