#include "interlace/route/route_layer.hpp"

#include <sched.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "interlace/core/clock.hpp"
#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"
#include "route/route_impl.hpp"

namespace interlace::route {

using fabric::FrameHeader;

std::string describe_routing(const fabric::RouteTable& t, int rank) {
  std::ostringstream o;
  o << "routed by " << t.source() << " (scheme " << (t.scheme().empty() ? "?" : t.scheme())
    << ", " << t.vcs() << " vc" << (t.vcs() == 1 ? "" : "s") << "); rank " << rank
    << " neighbours:";
  for (int r : t.neighbours(rank)) o << ' ' << r;
  return o.str();
}

std::unique_ptr<fabric::Fabric> make_route_layer(std::unique_ptr<fabric::Fabric> inner,
                                                 fabric::RouteTable table, const Config& config) {
  if (!inner) throw_error(Errc::invalid_argument, "route layer: no inner fabric");
  if (table.ranks() != inner->size())
    throw_error(Errc::invalid_argument, "INTERLACE_ROUTES: " + table.source() + " has routes for " +
                                            std::to_string(table.ranks()) + " ranks but the job has " +
                                            std::to_string(inner->size()));
  return std::make_unique<RouteLayer>(std::move(inner), std::move(table), config);
}

RouteLayer::RouteLayer(std::unique_ptr<fabric::Fabric> inner, fabric::RouteTable table,
                       const Config& cfg)
    : inner_(std::move(inner)), t_(std::move(table)), self_(inner_->rank()), n_(inner_->size()),
      vcs_(t_.vcs()), credits_(std::max(1, cfg.route_credits)),
      watchdog_ns_(static_cast<uint64_t>(std::max(0.0, cfg.route_watchdog_s) * 1e9)),
      connect_timeout_s_(cfg.connect_timeout_s), peer_check_s_(cfg.peer_check_s) {
  nb_index_.assign(static_cast<size_t>(n_), -1);
  for (int r : t_.neighbours(self_)) {
    nb_index_[static_cast<size_t>(r)] = static_cast<int>(nbs_.size());
    Neighbour nb;
    nb.rank = r;
    nb.out.resize(static_cast<size_t>(vcs_));
    for (Channel& c : nb.out) c.credits = credits_;
    nb.owed.assign(static_cast<size_t>(vcs_), 0);
    nbs_.push_back(std::move(nb));
  }
  lost_.assign(static_cast<size_t>(n_), 0);
  flooded_lost_.assign(static_cast<size_t>(n_), 0);
  fin_.assign(static_cast<size_t>(n_), 0);
  complete_.assign(static_cast<size_t>(n_), 0);
  IL_LOG(debug, "job is " << describe_routing(t_, self_) << "; credits " << credits_ << " per link and vc");
}

RouteLayer::~RouteLayer() {
  try {
    leave();
  } catch (const std::exception& e) {
    IL_LOG(warn, "route layer: leaving failed: " << e.what());
  }
}

int RouteLayer::arrived_from(int src, int dst) const {
  // Routes are destination-based, so the hop before this rank follows from the pair.
  int cur = src;
  for (int i = 0; i < n_; ++i) {
    const int nx = t_.next(cur, dst);
    if (nx == self_) return nb_of(cur);
    if (nx < 0 || cur == dst) break;
    cur = nx;
  }
  return -1;
}

bool RouteLayer::route_uses(int src, int dst, int rank) const {
  for (int cur = src, i = 0; i <= n_; ++i) {
    if (cur == rank) return true;
    if (cur == dst) return false;
    cur = t_.next(cur, dst);
  }
  return false;
}

bool RouteLayer::route_uses(int src, int dst, const std::vector<fabric::RouteChannel>& chans) const {
  const int vc = t_.vc(src, dst);
  for (int cur = src, i = 0; cur != dst && i <= n_; ++i) {
    const int nx = t_.next(cur, dst);
    for (const fabric::RouteChannel& c : chans)
      if (c.from == cur && c.to == nx && c.vc == vc) return true;
    cur = nx;
  }
  return false;
}

Errc RouteLayer::send(int peer, const FrameHeader& h, const void* payload, size_t len) {
  if (peer < 0 || peer >= n_) return Errc::invalid_rank;
  if (armed_.load(std::memory_order_relaxed) && armed_.exchange(false, std::memory_order_acq_rel))
    wake();
  if (peer == self_) return inner_->send(peer, h, payload, len);
  if (lost_[static_cast<size_t>(peer)]) return Errc::lost_peer;
  const int nbi = nb_of(t_.next(self_, peer));
  const int vc = t_.vc(self_, peer);
  Neighbour& nb = nbs_[static_cast<size_t>(nbi)];
  if (nb.lost) return Errc::lost_peer;
  Channel& ch = nb.out[static_cast<size_t>(vc)];
  FrameHeader f = h;
  f.src = static_cast<uint32_t>(self_);
  f.dst = static_cast<uint32_t>(peer);
  f.reserved = static_cast<uint16_t>(vc);
  f.len = len;
  if (ch.injected.empty() && ch.credits > 0 && nb.control.empty()) {
    const Errc rc = inner_->send(nb.rank, f, payload, len);
    if (rc == Errc::ok) {
      --ch.credits;
      return rc;
    }
    if (rc != Errc::would_block) return rc;
  }
  // Bounded: the engine keeps what does not fit in its own backlog.
  if (ch.injected.size() >= static_cast<size_t>(credits_)) return Errc::would_block;
  Held q;
  q.h = f;
  q.payload.assign(static_cast<const std::byte*>(payload), static_cast<const std::byte*>(payload) + len);
  ch.injected.push_back(std::move(q));
  ++waiting_;
  return Errc::ok;
}

void RouteLayer::transit(Held&& f, int nbi, int vc) {
  nbs_[static_cast<size_t>(nbi)].out[static_cast<size_t>(vc)].transit.push_back(std::move(f));
  ++waiting_;
}

int RouteLayer::on_inner_frame(const FrameHeader& h, const std::byte* payload, fabric::FrameSink& outer) {
  const bool fin = h.kind == fabric::kKindRoute && h.flags == fabric::kRouteFin;
  if (h.kind == fabric::kKindRoute && !fin) {
    Reports out;
    on_control(h, nb_of(static_cast<int>(h.src)), out);
    report(out, outer);
    return 0;
  }
  if (h.src == h.dst && !fin) {  // a rank's frame to itself never left it: no route, no credit
    outer.on_frame(h, payload);
    return 1;
  }
  const int vc = h.reserved;
  const int from = arrived_from(static_cast<int>(h.src), static_cast<int>(h.dst));
  if (vc >= vcs_ || from < 0) {
    IL_LOG(error, "route layer: dropping a frame " << h.src << "->" << h.dst << " on vc " << vc
                                                   << " that does not follow the tables");
    return 0;
  }
  Neighbour& in = nbs_[static_cast<size_t>(from)];
  if (static_cast<int>(h.dst) == self_) {
    ++in.owed[static_cast<size_t>(vc)];
    if (fin) {
      fin_[h.src] = 1;
      return 0;
    }
    FrameHeader d = h;
    d.reserved = 0;
    outer.on_frame(d, payload);
    return 1;
  }
  if (lost_[h.dst]) {  // nobody waits for it any more: free the buffer at once
    ++in.owed[static_cast<size_t>(vc)];
    return 0;
  }
  Held f;
  f.h = h;
  f.payload.assign(payload, payload + h.len);
  f.from = from;
  transit(std::move(f), nb_of(t_.next(self_, static_cast<int>(h.dst))), vc);
  return 0;
}

// Hands held frames to the inner fabric where credits allow. Returns frames moved.
int RouteLayer::pump() {
  int moved = 0;
  const size_t n = nbs_.size();
  for (size_t k = 0; k < n; ++k) {
    Neighbour& nb = nbs_[(rr_ + k) % n];
    if (nb.lost) continue;
    while (!nb.control.empty()) {
      const Errc rc = inner_->send(nb.rank, nb.control.front(), nullptr, 0);
      if (rc == Errc::would_block) break;
      nb.control.pop_front();  // sent, or the neighbour is gone (check_peers reports it)
    }
    if (!nb.control.empty()) continue;
    bool blocked = false;
    for (int v = 0; v < vcs_ && !blocked; ++v) {
      Channel& ch = nb.out[static_cast<size_t>(v)];
      while (ch.credits > 0 && !ch.empty()) {
        const bool inj = ch.transit.empty() || (ch.injected_turn && !ch.injected.empty());
        std::deque<Held>& q = inj ? ch.injected : ch.transit;
        Held& f = q.front();
        const Errc rc = inner_->send(nb.rank, f.h, f.payload.data(), f.payload.size());
        if (rc == Errc::would_block) {
          blocked = true;
          break;
        }
        if (rc != Errc::ok) break;  // lost: check_peers reports it and purges
        --ch.credits;
        if (f.from >= 0) ++nbs_[static_cast<size_t>(f.from)].owed[static_cast<size_t>(v)];
        q.pop_front();
        --waiting_;
        ch.injected_turn = !inj;
        ++moved;
      }
    }
  }
  rr_ = n ? (rr_ + 1) % n : 0;
  return moved;
}

void RouteLayer::return_credits() {
  for (Neighbour& nb : nbs_) {
    if (nb.lost) continue;
    for (int v = 0; v < vcs_; ++v) {
      uint32_t& o = nb.owed[static_cast<size_t>(v)];
      if (o == 0) continue;
      FrameHeader h;
      h.kind = fabric::kKindRoute;
      h.flags = fabric::kRouteCredit;
      h.seq = static_cast<uint32_t>(v);
      h.aux = o;
      o = 0;
      send_control(nb, h);
    }
  }
}

int RouteLayer::progress(fabric::FrameSink& sink) {
  InnerSink in(*this, sink);
  const int got = inner_->progress(in);
  // Always: refused control frames (a tcp link still connecting) wait in the queues too.
  int moved = pump();
  // One credit frame per link and VC per round: batched under load, prompt when idle.
  return_credits();
  if (waiting_ > 0) {
    moved += pump();
    watchdog(sink);
  }
  // Forwarding counts as progress so the engine's wait loop keeps polling.
  return got + moved;
}

double RouteLayer::wait_cap_s(bool* poll) const {
  bool inner_full = false, stuck = false;
  for (const Neighbour& nb : nbs_) {
    if (nb.lost) continue;
    if (!nb.control.empty()) inner_full = true;
    for (const Channel& ch : nb.out)
      if (!ch.empty()) (ch.credits > 0 ? inner_full : stuck) = true;
  }
  *poll = inner_full;
  return stuck && watchdog_ns_ > 0 ? std::max(1e-3, watchdog_ns_ * 1e-9 / 4) : -1;
}

void RouteLayer::wait(double timeout_s) {
  bool poll = false;
  const double cap = wait_cap_s(&poll);
  // A full inner link drains without waking us: poll. A credit arrives as a frame.
  if (poll) {
    sched_yield();
    return;
  }
  if (cap >= 0) timeout_s = std::min(timeout_s, cap);
  inner_->wait(timeout_s);
}

bool RouteLayer::arm_sleep() {
  bool poll = false;
  armed_cap_s_ = wait_cap_s(&poll);
  if (poll || !inner_->arm_sleep()) return false;
  armed_.store(true, std::memory_order_seq_cst);
  return true;
}

void RouteLayer::sleep_armed(double timeout_s) {
  if (armed_cap_s_ >= 0 && (timeout_s < 0 || armed_cap_s_ < timeout_s)) timeout_s = armed_cap_s_;
  inner_->sleep_armed(timeout_s);
}

void RouteLayer::disarm_sleep() {
  armed_.store(false, std::memory_order_relaxed);
  inner_->disarm_sleep();
}

void RouteLayer::check_peers(fabric::FrameSink& sink) {
  InnerSink in(*this, sink);
  inner_->check_peers(in);
}

void RouteLayer::watch_peer(int peer) {
  if (peer < 0 || peer >= n_ || peer == self_) return;
  inner_->watch_peer(t_.next(self_, peer));
}

void InnerSink::on_frame(const FrameHeader& h, const std::byte* payload) {
  layer_.on_inner_frame(h, payload, outer_);
}

void InnerSink::on_peer_lost(int peer, const std::string& why) {
  layer_.on_neighbour_lost(peer, why, outer_);
}

}  // namespace interlace::route
