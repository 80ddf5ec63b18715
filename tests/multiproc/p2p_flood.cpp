// Rank 0 sends COUNT messages of BYTES to rank 1, which keeps progressing without
// receiving for IDLE seconds, then receives and checks them all. Each rank reports how
// much its resident memory grew; with eager credit (docs/p2p.md) that stays near
// INTERLACE_EAGER_CREDIT instead of the whole flood (tests/python/test_p2p_memory.py).
//   p2p_flood BYTES COUNT IDLE_S
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <interlace/interlace.hpp>
#include <interlace/engine/context.hpp>

using namespace interlace;

namespace {

// Peak resident set (VmHWM) in KiB: catches memory held at any moment, even if freed later.
long peak_rss_kib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

long rss_kib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

uint8_t byte_of(uint64_t seq, size_t i) { return static_cast<uint8_t>(seq * 131 + i * 7 + 1); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: p2p_flood BYTES COUNT IDLE_S\n");
    return 2;
  }
  const size_t bytes = std::strtoull(argv[1], nullptr, 10);
  const long count = std::atol(argv[2]);
  const double idle_s = std::atof(argv[3]);
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  std::vector<uint8_t> buf(bytes < 8 ? 8 : bytes);
  std::memset(buf.data(), 1, buf.size());  // resident before the baseline is taken
  int ok = 1;
  w.sendrecv(&ok, 1, Datatype::int32, 1 - w.rank(), 1, &ok, 1, Datatype::int32, 1 - w.rank(), 1);
  const long base = rss_kib();
  long bad = -1;
  if (w.rank() == 0) {
    for (long i = 0; i < count; ++i) {
      for (size_t k = 0; k < bytes; ++k) buf[k] = byte_of(i, k);
      if (bytes >= 8) std::memcpy(buf.data(), &i, 8);
      w.send(buf.data(), bytes, Datatype::uint8, 1, 7);
    }
    w.recv(&ok, 1, Datatype::int32, 1, 8);
  } else {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(idle_s);
    while (std::chrono::steady_clock::now() < until) w.iprobe(0, 99);
    for (long i = 0; i < count; ++i) {
      Status st = w.recv(buf.data(), bytes, Datatype::uint8, 0, 7);
      long seq = i;
      if (bytes >= 8) std::memcpy(&seq, buf.data(), 8);
      bool good = st.bytes == bytes && seq == i;
      for (size_t k = 8; good && k < bytes; ++k) good = buf[k] == byte_of(i, k);
      if (!good && bad < 0) bad = i;
    }
    ok = bad < 0;
    w.send(&ok, 1, Datatype::int32, 0, 8);
  }
  const long grew = peak_rss_kib() - base;
  std::printf("p2p_flood rank %d over %s: %ld x %zu B, resident grew %ld KiB, %s\n", w.rank(),
              rt.context().fabric().name(), count, bytes, grew,
              ok ? "all messages intact" : ("message " + std::to_string(bad) + " wrong").c_str());
  std::fflush(stdout);
  rt.finalize();
  return ok ? 0 : 1;
}
