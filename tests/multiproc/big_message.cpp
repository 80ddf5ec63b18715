// Sends one message larger than 2 GiB (2^31 + 24 bytes) from rank 0 to rank 1 and
// checks it, so no 32-bit length survives anywhere on the path.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <interlace/interlace.hpp>
#include <interlace/engine/context.hpp>

using namespace interlace;

int main() {
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  const size_t words = ((size_t(1) << 31) + 24) / 8;
  int ok = 1;
  if (w.rank() == 0) {
    std::vector<uint64_t> v(words);
    for (size_t i = 0; i < words; ++i) v[i] = i * 0x9e3779b97f4a7c15ull;
    w.send(v.data(), words, Datatype::uint64, 1, 0);
    w.recv(&ok, 1, Datatype::int32, 1, 1);
    std::printf("big_message %s: %zu bytes over %s\n", ok ? "OK" : "FAILED", words * 8,
                rt.context().fabric().name());
  } else if (w.rank() == 1) {
    std::vector<uint64_t> v(words);
    Status st = w.recv(v.data(), words, Datatype::uint64, 0, 0);
    ok = st.bytes == words * 8;
    for (size_t i = 0; i < words && ok; ++i) ok = v[i] == i * 0x9e3779b97f4a7c15ull;
    w.send(&ok, 1, Datatype::int32, 0, 1);
  }
  rt.finalize();
  return ok ? 0 : 1;
}
