// The collective teardown. A rank that leaves early would cut the routes of pairs that
// pass through it, so every rank forwards until all frames of the job have arrived:
// each rank sends a fin along every pair's route (behind its last frame to that rank,
// per-pair FIFO); a rank that has every fin floods "complete"; a rank leaves once every
// rank is complete (then no frame is anywhere in the network any more).
#include "interlace/core/clock.hpp"
#include "interlace/core/log.hpp"
#include "route/route_impl.hpp"

namespace interlace::route {

namespace {
struct DropSink final : fabric::FrameSink {
  void on_frame(const fabric::FrameHeader&, const std::byte*) override {}
  void on_peer_lost(int, const std::string&) override {}
};
}  // namespace

bool RouteLayer::all_done(const std::vector<uint8_t>& flags) const {
  for (int r = 0; r < n_; ++r)
    if (!flags[static_cast<size_t>(r)] && !lost_[static_cast<size_t>(r)]) return false;
  return true;
}

bool RouteLayer::controls_sent() const {
  for (const Neighbour& nb : nbs_)
    if (!nb.lost && !nb.control.empty()) return false;
  return true;
}

void RouteLayer::leave() {
  leaving_ = true;
  DropSink drop;  // the engine is gone: frames still arriving for this rank are dropped
  for (int d = 0; d < n_; ++d) {
    if (d == self_ || lost_[static_cast<size_t>(d)]) continue;
    const int nbi = nb_of(t_.next(self_, d));
    if (nbs_[static_cast<size_t>(nbi)].lost) continue;
    Held f;
    f.h.kind = fabric::kKindRoute;
    f.h.flags = fabric::kRouteFin;
    f.h.src = static_cast<uint32_t>(self_);
    f.h.dst = static_cast<uint32_t>(d);
    f.h.reserved = static_cast<uint16_t>(t_.vc(self_, d));
    // Behind this rank's own frames to d: the injected queue keeps the pair's order.
    nbs_[static_cast<size_t>(nbi)].out[static_cast<size_t>(t_.vc(self_, d))].injected.push_back(std::move(f));
    ++waiting_;
  }
  fin_[static_cast<size_t>(self_)] = 1;
  const Deadline give_up = Deadline::after(connect_timeout_s_ + watchdog_ns_ * 1e-9);
  uint64_t next_check = 0;
  for (;;) {
    progress(drop);
    if (!complete_[static_cast<size_t>(self_)] && all_done(fin_)) {
      complete_[static_cast<size_t>(self_)] = 1;
      fabric::FrameHeader h;
      h.flags = fabric::kRouteComplete;
      h.aux = static_cast<uint64_t>(self_);
      flood(h, -1);
    }
    if (all_done(complete_) && controls_sent()) break;
    if (give_up.expired()) {
      int missing = 0;
      for (int r = 0; r < n_; ++r) missing += !complete_[static_cast<size_t>(r)] && !lost_[static_cast<size_t>(r)];
      IL_LOG(warn, "route layer: leaving while " << missing
                                                  << " ranks have not finished; frames through this rank are lost");
      break;
    }
    const uint64_t now = now_ns();
    if (now >= next_check) {
      check_peers(drop);
      next_check = now + static_cast<uint64_t>(peer_check_s_ * 1e9);
    }
    wait(peer_check_s_);
  }
}

}  // namespace interlace::route
