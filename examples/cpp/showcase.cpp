// The interlace showcase (run by `make demo` on 4 ranks). Each later programming
// model adds a section here. Today: point-to-point messaging.
#include <cstdio>
#include <algorithm>
#include <numeric>
#include <vector>

#include <interlace/interlace.hpp>
#include <interlace/engine/context.hpp>

using interlace::Datatype;

static bool section_p2p(interlace::Communicator& w) {
  const int n = w.size(), me = w.rank();
  // 1. ring of tokens with sendrecv
  int token = me, got = -1;
  w.sendrecv(&token, 1, Datatype::int32, (me + 1) % n, 0, &got, 1, Datatype::int32,
             (me + n - 1) % n, 0);
  bool ok = got == (me + n - 1) % n;
  // 2. a large message (rendezvous, single copy on shm) from every rank to rank 0
  std::vector<double> big(1 << 20);
  std::iota(big.begin(), big.end(), me * 1.0);
  if (me == 0) {
    for (int k = 1; k < n; ++k) {
      interlace::Status st = w.recv(big.data(), big.size(), Datatype::float64, interlace::ANY_SOURCE, 1);
      ok = ok && big[12345] == st.source + 12345.0 && st.count(Datatype::float64) == big.size();
    }
  } else {
    w.send(big.data(), big.size(), Datatype::float64, 0, 1);
  }
  // 3. split into even/odd halves and pass the lowest world rank around each half
  interlace::Communicator half = w.split(me % 2, me);
  int low = me;
  for (int step = 0; step < half.size(); ++step) {
    int in = -1;
    half.sendrecv(&low, 1, Datatype::int32, (half.rank() + 1) % half.size(), 2, &in, 1,
                  Datatype::int32, (half.rank() + half.size() - 1) % half.size(), 2);
    low = std::min(low, in);
  }
  ok = ok && low == me % 2;
  return ok;
}

int main() {
  interlace::Runtime rt = interlace::Runtime::init();
  interlace::Communicator w = rt.world();
  bool ok = section_p2p(w);
  int all_ok = ok ? 1 : 0;
  if (w.rank() == 0) {
    for (int r = 1; r < w.size(); ++r) {
      int v = 0;
      w.recv(&v, 1, Datatype::int32, r, 9);
      all_ok &= v;
    }
    std::printf("interlace showcase on %d ranks over the %s fabric\n", w.size(),
                rt.context().fabric().name());
    std::printf("  p2p: ring, 8 MiB gathers (rendezvous), split halves ... %s\n",
                all_ok ? "OK" : "FAILED");
  } else {
    w.send(&all_ok, 1, Datatype::int32, 0, 9);
  }
  rt.finalize();
  return all_ok ? 0 : 1;
}
