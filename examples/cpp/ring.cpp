// A token goes around the ring once; every rank adds its rank number.
//   interlace run -n 4 ./build/examples/cpp/interlace-example-ring
#include <cstdio>

#include <interlace/interlace.hpp>

int main() {
  using interlace::Datatype;
  interlace::Runtime rt = interlace::Runtime::init();
  interlace::Communicator w = rt.world();
  const int next = (w.rank() + 1) % w.size(), prev = (w.rank() + w.size() - 1) % w.size();
  long token = 0;
  if (w.rank() == 0) {
    w.send(&token, 1, Datatype::int64, next, 0);
    w.recv(&token, 1, Datatype::int64, prev, 0);
    const long expect = static_cast<long>(w.size()) * (w.size() - 1) / 2;
    std::printf("ring of %d ranks: token %ld (expected %ld) %s\n", w.size(), token, expect,
                token == expect ? "OK" : "WRONG");
    rt.finalize();
    return token == expect ? 0 : 1;
  }
  w.recv(&token, 1, Datatype::int64, prev, 0);
  token += w.rank();
  w.send(&token, 1, Datatype::int64, next, 0);
  rt.finalize();
}
