// Two-rank fabric check across hosts (run in two network namespaces by
// run_check.sh). Rank 0 serves the TcpStore; both ranks exchange checksummed
// frames of mixed sizes (8 B .. 32 MiB, capped at the fabric's max_payload) and
// count lost, duplicated, reordered and corrupted frames, which must all be zero.
// Exit 0 = pass.
//   netns_fabric_check --rank R --store HOST:PORT --listen ADDR|IFACE [--frames N]
//     [--fabric tcp|udp] [--min-seconds S]  (senders spread frames over S seconds)
//     [--die-after K]    exit abruptly (like a crash) after sending K frames
//     [--expect-lost]    pass only if the peer is reported lost, in bounded time,
//                        with every frame before that intact and in order
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/error.hpp"
#include "interlace/fabric/fabric.hpp"
#include "interlace/fabric/registry.hpp"

using namespace interlace;
using namespace interlace::fabric;

namespace {

const char* kSecret = "netns-check-secret";

uint64_t fnv1a(const std::byte* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<uint8_t>(p[i])) * 1099511628211ull;
  return h;
}

size_t g_max_payload = SIZE_MAX;

// Mostly small frames, some medium, a few big ones; deterministic per seq.
size_t frame_size_uncapped(uint32_t seq) {
  if (seq == 7) return 32u << 20;
  if (seq % 97 == 0) return 4u << 20;
  if (seq % 13 == 0) return 64 * 1024 + seq;
  return 8 + (seq * 37) % 2000;
}
size_t frame_size(uint32_t seq) { return std::min(frame_size_uncapped(seq), g_max_payload); }

void fill(std::vector<std::byte>& v, uint32_t src, uint32_t seq) {
  uint64_t x = (uint64_t{src} << 32 | seq) * 0x9e3779b97f4a7c15ull + 1;
  for (auto& b : v) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    b = static_cast<std::byte>(x);
  }
}

struct Checker : FrameSink {
  uint32_t expect = 0;
  long lost = 0, duplicated = 0, reordered = 0, corrupted = 0, peer_lost = 0;
  void on_frame(const FrameHeader& h, const std::byte* p) override {
    if (h.seq < expect) ++duplicated;
    else if (h.seq > expect) { ++reordered; lost += h.seq - expect; }
    expect = h.seq + 1;
    std::vector<std::byte> want(frame_size(h.seq));
    fill(want, h.src, h.seq);
    if (h.len != want.size() || fnv1a(p, h.len) != h.aux ||
        std::memcmp(p, want.data(), want.size()) != 0)
      ++corrupted;
  }
  void on_peer_lost(int peer, const std::string& why) override {
    ++peer_lost;
    std::fprintf(stderr, "netns check: peer %d lost: %s\n", peer, why.c_str());
  }
};

std::string arg(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  if (!fallback) {
    std::fprintf(stderr, "netns_fabric_check: missing %s\n", name);
    std::exit(2);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) try {
  int rank = std::atoi(arg(argc, argv, "--rank", nullptr).c_str());
  std::string store_at = arg(argc, argv, "--store", nullptr);
  std::string listen = arg(argc, argv, "--listen", nullptr);
  uint32_t frames = static_cast<uint32_t>(std::atoi(arg(argc, argv, "--frames", "2000").c_str()));
  long die_after = std::atol(arg(argc, argv, "--die-after", "-1").c_str());
  bool expect_lost = arg(argc, argv, "--expect-lost", "no") != "no";
  std::string fabric_name = arg(argc, argv, "--fabric", "tcp");
  double min_seconds = std::atof(arg(argc, argv, "--min-seconds", "0").c_str());
  std::string store_host = store_at.substr(0, store_at.rfind(':'));
  int store_port = std::atoi(store_at.substr(store_at.rfind(':') + 1).c_str());

  std::unique_ptr<bootstrap::TcpStoreServer> server;
  if (rank == 0) server = std::make_unique<bootstrap::TcpStoreServer>(store_host, store_port, kSecret);
  auto store = bootstrap::make_tcp_store_client(store_host, store_port, kSecret, 60);

  FabricInit init;
  init.rank = rank;
  init.size = 2;
  init.job_id = "netns-check";
  init.secret = kSecret;
  init.store = store.get();
  init.config.tcp_interface = listen;
  init.config.connect_timeout_s = 60;
  // udp reads its address like its other options, from its own variable.
  if (fabric_name == "udp") setenv("INTERLACE_UDP_ADDR", listen.c_str(), 1);
  auto fabric = make_fabric(fabric_name, init);
  g_max_payload = fabric->max_payload();
  int peer = 1 - rank;

  Checker check;
  uint64_t t0 = now_ns();
  std::vector<std::byte> payload;
  Deadline deadline = Deadline::after(300);
  uint32_t sent = 0, filled = UINT32_MAX;
  uint64_t sum = 0;
  while ((sent < frames || check.expect < frames) && !check.peer_lost && !deadline.expired()) {
    const bool paced = min_seconds > 0 && (now_ns() - t0) * 1e-9 < min_seconds * sent / frames;
    if (sent < frames && !paced) {
      // Filled once per frame, not per attempt: a fabric that says would_block
      // for a 4 MiB frame many times must not be measured refilling it.
      if (filled != sent) {
        payload.resize(frame_size(sent));
        fill(payload, static_cast<uint32_t>(rank), sent);
        filled = sent;
        sum = fnv1a(payload.data(), payload.size());
      }
      FrameHeader h;
      h.kind = kKindP2pEager;
      h.src = static_cast<uint32_t>(rank);
      h.dst = static_cast<uint32_t>(peer);
      h.seq = sent;
      h.aux = sum;
      Errc e = fabric->send(peer, h, payload.data(), payload.size());
      if (e == Errc::ok && static_cast<long>(++sent) == die_after) {
        std::printf("rank %d: exiting abruptly after %u frames\n", rank, sent);
        std::fflush(stdout);
        std::_Exit(0);
      }
      // lost_peer is expected with --expect-lost; the sink's report ends the loop.
      bool fine = e == Errc::ok || e == Errc::would_block || (expect_lost && e == Errc::lost_peer);
      if (!fine) throw_error(e, "send to peer failed");
    }
    if (fabric->progress(check) == 0 && (sent == frames || paced)) fabric->wait(paced ? 0.001 : 0.05);
    fabric->check_peers(check);
  }
  double secs = (now_ns() - t0) * 1e-9;
  if (expect_lost) {
    bool ok = check.peer_lost == 1 && !check.lost && !check.duplicated && !check.reordered &&
              !check.corrupted && !deadline.expired();
    std::printf("rank %d: peer lost after %u intact frames, %.2f s; %s\n", rank, check.expect,
                secs, ok ? "as expected" : "NOT as expected");
    return ok ? 0 : 1;
  }
  // Each side announces it has everything, then waits for the other before
  // tearing down (the store server lives in rank 0 and must outlast rank 1's requests).
  // Progress meanwhile: frames we queued still need pushing into the socket.
  store->set("done/" + std::to_string(rank), "1");
  Deadline done_by = Deadline::after(120);
  while (!store->check("done/" + std::to_string(peer)) && !done_by.expired()) {
    fabric->progress(check);
    fabric->wait(0.01);
  }
  // Rank 1's last store request is this "bye"; rank 0 (the server) outlives it.
  if (rank == 1) store->set("bye", "1");
  Deadline bye_by = Deadline::after(60);
  while (rank == 0 && !store->check("bye") && !bye_by.expired()) {
    fabric->progress(check);
    fabric->wait(0.01);
  }
  std::printf("rank %d via %s over %s: sent %u, received %u in %.2f s; lost %ld duplicated %ld "
              "reordered %ld corrupted %ld peer-lost %ld\n",
              rank, listen.c_str(), fabric_name.c_str(), sent, check.expect, secs, check.lost, check.duplicated,
              check.reordered, check.corrupted, check.peer_lost);
  bool ok = sent == frames && check.expect == frames && !check.lost && !check.duplicated &&
            !check.reordered && !check.corrupted && !check.peer_lost;
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "netns_fabric_check: %s\n", e.what());
  return 1;
}
