// Fault injection for the udp fabric (INTERLACE_UDP_FAULTS, docs/udp.md): every
// outgoing datagram passes through here and may be dropped, duplicated, held back
// (reordered / delayed) or swallowed by a timed outage. Deterministic per seed and rank.
#pragma once
#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <vector>

#include "fabric/udp/udp_options.hpp"

namespace interlace::fabric::udp {

class FaultInjector {
 public:
  using Sender = std::function<void(const sockaddr_in&, const std::byte*, size_t)>;
  FaultInjector(const FaultSpec& spec, int rank, double start_s, Sender send);

  bool active() const { return spec_.any(); }
  // Sends (or not) one datagram. `ack`: an acknowledgement (ack_drop applies).
  void send(const sockaddr_in& to, const std::byte* data, size_t len, bool ack, double now_s);
  // Releases held datagrams that are due.
  void release(double now_s);
  // When the next held datagram is due; negative if none.
  double next_due() const { return held_.empty() ? -1.0 : held_.top().due; }
  uint64_t dropped() const { return dropped_; }

 private:
  struct Held {
    double due;
    uint64_t order;
    sockaddr_in to;
    std::vector<std::byte> bytes;
    bool operator>(const Held& o) const { return due != o.due ? due > o.due : order > o.order; }
  };
  bool chance(double p) { return p > 0 && uni_(rng_) < p; }
  void hold(const sockaddr_in& to, const std::byte* data, size_t len, double due);

  FaultSpec spec_;
  double start_s_;
  Sender send_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> uni_{0.0, 1.0};
  std::priority_queue<Held, std::vector<Held>, std::greater<Held>> held_;
  uint64_t order_ = 0, dropped_ = 0;
};

}  // namespace interlace::fabric::udp
