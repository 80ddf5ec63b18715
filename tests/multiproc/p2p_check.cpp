// Multi-process p2p battery for any number of ranks; exits 0 only if every check holds.
//   interlace run -n N [--fabric tcp] build/tests/multiproc/p2p_check
#include <cstdio>
#include <cstring>
#include <vector>

#include <interlace/interlace.hpp>
#include <interlace/engine/context.hpp>

using namespace interlace;

namespace {
int failures = 0;
void check(bool ok, const char* what, int rank) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: check failed: %s\n", rank, what);
    ++failures;
  }
}
uint8_t byte_at(int src, int dst, size_t i) { return static_cast<uint8_t>(src * 37 + dst * 11 + i * 7); }
}  // namespace

int main() {
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  const int n = w.size(), me = w.rank();

  // All pairs (self included) exchange messages at eager and rendezvous sizes.
  for (size_t size : {size_t(0), size_t(8), size_t(20000), size_t(3 << 20)}) {
    std::vector<std::vector<uint8_t>> out(n), in(n);
    std::vector<Request> rq;
    for (int p = 0; p < n; ++p) {
      out[p].resize(size);
      for (size_t i = 0; i < size; ++i) out[p][i] = byte_at(me, p, i);
      in[p].assign(size, 0);
      rq.push_back(w.irecv(in[p].data(), size, Datatype::uint8, p, 7));
    }
    for (int p = 0; p < n; ++p) rq.push_back(w.isend(out[p].data(), size, Datatype::uint8, p, 7));
    Request::wait_all(rq);
    for (int p = 0; p < n; ++p)
      for (size_t i = 0; i < size; ++i)
        if (in[p][i] != byte_at(p, me, i)) { check(false, "all-pairs payload", me); break; }
  }
  // Gather with ANY_SOURCE at rank 0; status names each sender once.
  if (me == 0) {
    std::vector<int> seen(n, 0);
    seen[0] = 1;
    for (int k = 1; k < n; ++k) {
      int v = -1;
      Status st = w.recv(&v, 1, Datatype::int32, ANY_SOURCE, 3);
      check(v == st.source * st.source, "any-source value", me);
      seen[st.source]++;
    }
    for (int r = 0; r < n; ++r) check(seen[r] == 1, "any-source senders", me);
  } else {
    int v = me * me;
    w.ssend(&v, 1, Datatype::int32, 0, 3);
  }
  // Split by parity; ring inside each half.
  Communicator half = w.split(me % 2, me);
  int token = me, got = -1;
  half.sendrecv(&token, 1, Datatype::int32, (half.rank() + 1) % half.size(), 0, &got, 1,
                Datatype::int32, (half.rank() + half.size() - 1) % half.size(), 0);
  check(got == half.world_rank_of((half.rank() + half.size() - 1) % half.size()), "split ring", me);
  // Final handshake so nobody leaves while a peer still checks.
  int ok = failures == 0, all = ok;
  if (me == 0) {
    for (int r = 1; r < n; ++r) { int v; w.recv(&v, 1, Datatype::int32, r, 99); all &= v; }
    for (int r = 1; r < n; ++r) w.send(&all, 1, Datatype::int32, r, 98);
  } else {
    w.send(&ok, 1, Datatype::int32, 0, 99);
    w.recv(&all, 1, Datatype::int32, 0, 98);
  }
  if (me == 0) std::printf("p2p_check %s on %d ranks (%s)\n", all ? "OK" : "FAILED", n, rt.context().fabric().name());
  rt.finalize();
  return all ? 0 : 1;
}
