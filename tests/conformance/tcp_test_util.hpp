// Helpers for the tcp-specific conformance tests: fabrics of one job built in
// one process (driven from one thread, alternating progress), a recording sink
// and checksummed payloads.
#pragma once
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/fabric/fabric.hpp"

namespace tcp_test {

using namespace interlace;
using namespace interlace::fabric;

struct Received {
  FrameHeader h;
  std::vector<std::byte> payload;
};

struct Recorder : FrameSink {
  std::vector<Received> frames;
  std::vector<std::pair<int, std::string>> lost;
  void on_frame(const FrameHeader& h, const std::byte* p) override {
    frames.push_back({h, std::vector<std::byte>(p, p + h.len)});
  }
  void on_peer_lost(int peer, const std::string& why) override { lost.emplace_back(peer, why); }
};

inline std::string unique_job(const char* what) {
  static std::atomic<int> n{0};
  return std::string("tcp-") + what + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
}

struct Job {
  std::shared_ptr<bootstrap::Store> store = bootstrap::shared_memory_store();
  std::string job_id;
  std::string secret = "correct horse battery staple";
  Config config;
  explicit Job(const char* what, double connect_timeout_s = 5.0) : job_id(unique_job(what)) {
    config.tcp_interface = "127.0.0.1";
    config.connect_timeout_s = connect_timeout_s;
  }
  std::unique_ptr<Fabric> make(int rank, int size) {
    FabricInit init;
    init.rank = rank;
    init.size = size;
    init.job_id = job_id;
    init.secret = secret;
    init.store = store.get();
    init.config = config;
    return make_tcp_fabric(init);
  }
  std::string address(int rank) { return store->get("tcp/" + job_id + "/" + std::to_string(rank), 5); }
};

// Deterministic bytes whose every position depends on (seed, index).
inline std::vector<std::byte> pattern(size_t n, uint64_t seed) {
  std::vector<std::byte> v(n);
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    v[i] = static_cast<std::byte>(x);
  }
  return v;
}

inline FrameHeader header(int src, int dst, uint32_t seq, uint64_t len, int32_t tag = 7) {
  FrameHeader h;
  h.kind = kKindP2pEager;
  h.src = static_cast<uint32_t>(src);
  h.dst = static_cast<uint32_t>(dst);
  h.tag = tag;
  h.seq = seq;
  h.len = len;
  return h;
}

// Progresses every fabric (each with its own sink) until done() or the timeout.
inline bool pump_until(const std::vector<Fabric*>& fabrics, const std::vector<Recorder*>& sinks,
                       const std::function<bool()>& done, double timeout_s = 10.0) {
  Deadline d = Deadline::after(timeout_s);
  while (!done()) {
    if (d.expired()) return false;
    for (size_t i = 0; i < fabrics.size(); ++i) {
      fabrics[i]->progress(*sinks[i]);
      fabrics[i]->check_peers(*sinks[i]);
    }
  }
  return true;
}

// Sends, progressing both sides while the fabric says would_block.
inline Errc send_retry(Fabric& from, Recorder& from_sink, Fabric& to, Recorder& to_sink, int peer,
                       const FrameHeader& h, const void* p, size_t len) {
  for (;;) {
    Errc e = from.send(peer, h, p, len);
    if (e != Errc::would_block) return e;
    from.progress(from_sink);
    to.progress(to_sink);
  }
}

}  // namespace tcp_test
