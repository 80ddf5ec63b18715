#include "fabric/udp/udp_faults.hpp"

namespace interlace::fabric::udp {

FaultInjector::FaultInjector(const FaultSpec& spec, int rank, double start_s, Sender send)
    : spec_(spec), start_s_(start_s), send_(std::move(send)),
      rng_(spec.seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(rank) + 1) {}

void FaultInjector::hold(const sockaddr_in& to, const std::byte* data, size_t len, double due) {
  held_.push(Held{due, order_++, to, std::vector<std::byte>(data, data + len)});
}

void FaultInjector::send(const sockaddr_in& to, const std::byte* data, size_t len, bool ack,
                         double now_s) {
  if (!spec_.any()) return send_(to, data, len);
  const double t = now_s - start_s_;
  if (spec_.down_start_s >= 0 && t >= spec_.down_start_s && t < spec_.down_start_s + spec_.down_len_s) {
    ++dropped_;
    return;
  }
  if (chance(spec_.drop) || (ack && chance(spec_.ack_drop))) {
    ++dropped_;
    return;
  }
  const int copies = chance(spec_.dup) ? 2 : 1;
  for (int i = 0; i < copies; ++i) {
    double delay = spec_.delay_ms > 0 ? uni_(rng_) * spec_.delay_ms * 1e-3 : 0.0;
    // Held back past the datagrams that follow it: they overtake it.
    if (chance(spec_.reorder)) delay += 1e-3 + uni_(rng_) * 1e-3;
    if (delay > 0) hold(to, data, len, now_s + delay);
    else send_(to, data, len);
  }
}

void FaultInjector::release(double now_s) {
  while (!held_.empty() && held_.top().due <= now_s) {
    const Held& h = held_.top();
    send_(h.to, h.bytes.data(), h.bytes.size());
    held_.pop();
  }
}

}  // namespace interlace::fabric::udp
