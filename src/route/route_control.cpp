// Control traffic between neighbours (credits and flooded notices), lost ranks and the
// routing-deadlock watchdog.
#include <algorithm>
#include <sstream>

#include "interlace/core/clock.hpp"
#include "interlace/core/log.hpp"
#include "route/route_impl.hpp"

namespace interlace::route {

using fabric::FrameHeader;

void RouteLayer::send_control(Neighbour& nb, FrameHeader h) {
  if (nb.lost) return;
  h.kind = fabric::kKindRoute;
  h.src = static_cast<uint32_t>(self_);
  h.dst = static_cast<uint32_t>(nb.rank);
  h.len = 0;
  // Control frames take no credit: the receiver consumes them at once.
  if (nb.control.empty() && inner_->send(nb.rank, h, nullptr, 0) != Errc::would_block) return;
  nb.control.push_back(h);
}

void RouteLayer::flood(const FrameHeader& h, int except_nb) {
  for (size_t i = 0; i < nbs_.size(); ++i)
    if (static_cast<int>(i) != except_nb) send_control(nbs_[i], h);
}

void RouteLayer::on_control(const FrameHeader& h, int from, Reports& out) {
  switch (h.flags) {
    case fabric::kRouteCredit:
      if (from >= 0 && h.seq < static_cast<uint32_t>(vcs_)) {
        Channel& ch = nbs_[static_cast<size_t>(from)].out[h.seq];
        ch.credits += static_cast<int>(h.aux);
        ch.stuck_since_ns = 0;  // a wait for credit starts afresh from here
      }
      return;
    case fabric::kRouteLost: {
      const int r = static_cast<int>(h.aux);
      if (r < 0 || r >= n_ || r == self_ || flooded_lost_[static_cast<size_t>(r)]) return;
      flooded_lost_[static_cast<size_t>(r)] = 1;
      flood(h, from);
      rank_lost(r, "rank " + std::to_string(r) + " was lost (notice from neighbour rank " +
                       std::to_string(h.src) + ")", out);
      return;
    }
    case fabric::kRouteComplete: {
      const int r = static_cast<int>(h.aux);
      if (r < 0 || r >= n_ || complete_[static_cast<size_t>(r)]) return;
      complete_[static_cast<size_t>(r)] = 1;
      flood(h, from);
      return;
    }
    case fabric::kRouteDeadlock: {
      const fabric::RouteChannel c{static_cast<int>(h.comm), static_cast<int>(h.aux), static_cast<int>(h.seq)};
      if (c.from < 0 || c.from >= n_ || c.to < 0 || c.to >= n_ || c.vc >= vcs_) return;
      if (!deadlocks_seen_.insert({c.from, c.to, c.vc}).second) return;
      flood(h, from);
      deadlock(c, deadlock_text(c, h.tag, -1), out);
      return;
    }
    default:
      IL_LOG(error, "route layer: unknown control operation " << int(h.flags) << " from rank " << h.src);
  }
}

void RouteLayer::mark(int r, const std::string& why, Reports& out) {
  if (r == self_ || lost_[static_cast<size_t>(r)]) return;
  lost_[static_cast<size_t>(r)] = 1;
  out.emplace_back(r, why);
}

void RouteLayer::rank_lost(int x, const std::string& why, Reports& out) {
  mark(x, why, out);
  // Routes are fixed: every pair whose path crosses x is cut, in both directions.
  for (int d = 0; d < n_; ++d) {
    if (d == self_ || d == x || lost_[static_cast<size_t>(d)]) continue;
    if (route_uses(self_, d, x) || route_uses(d, self_, x))
      mark(d, "rank " + std::to_string(d) + " is unreachable: the route between rank " +
                  std::to_string(self_) + " and rank " + std::to_string(d) + " passes rank " +
                  std::to_string(x) + ", which was lost (" + why + ")",
           out);
  }
  purge();
}

// Drops held frames nobody can receive any more, handing their buffers' credits back.
void RouteLayer::purge() {
  for (Neighbour& nb : nbs_) {
    for (size_t v = 0; v < nb.out.size(); ++v) {
      for (std::deque<Held>* q : {&nb.out[v].transit, &nb.out[v].injected}) {
        std::deque<Held> keep;
        for (Held& f : *q) {
          if (!nb.lost && !lost_[f.h.dst]) {
            keep.push_back(std::move(f));
            continue;
          }
          --waiting_;
          if (f.from >= 0) ++nbs_[static_cast<size_t>(f.from)].owed[v];
        }
        q->swap(keep);
      }
    }
    if (nb.lost) nb.control.clear();
  }
}

void RouteLayer::on_neighbour_lost(int peer, const std::string& why, fabric::FrameSink& outer) {
  // After the collective teardown a departing neighbour is no loss.
  if (leaving_ && all_done(complete_)) return;
  if (peer < 0 || peer >= n_ || peer == self_) return;
  Reports out;
  const int i = nb_of(peer);
  if (i >= 0) nbs_[static_cast<size_t>(i)].lost = true;
  if (!flooded_lost_[static_cast<size_t>(peer)]) {
    flooded_lost_[static_cast<size_t>(peer)] = 1;
    FrameHeader h;
    h.flags = fabric::kRouteLost;
    h.aux = static_cast<uint64_t>(peer);
    flood(h, i);
  }
  rank_lost(peer, why, out);
  report(out, outer);
}

std::string RouteLayer::deadlock_text(const fabric::RouteChannel& c, int reporter, double waited) const {
  const std::string ch = fabric::RouteTable::describe({c});
  std::ostringstream o;
  o << "routing deadlock: ";
  if (waited >= 0)
    o << "rank " << reporter << " waited " << waited << " s for a credit on channel " << ch
      << " (INTERLACE_ROUTE_WATCHDOG=" << watchdog_ns_ * 1e-9 << ")";
  else
    o << "rank " << reporter << " found channel " << ch << " stuck";
  const std::vector<fabric::RouteChannel> cyc = t_.cycle_through(c);
  if (!cyc.empty())
    o << "; dependency cycle in " << t_.source() << ": " << fabric::RouteTable::describe(cyc);
  else
    o << "; the tables in " << t_.source() << " have no dependency cycle through it, so rank "
      << c.to << " is slow or stuck (not progressing)";
  return o.str();
}

void RouteLayer::deadlock(const fabric::RouteChannel& c, const std::string& why, Reports& out) {
  std::vector<fabric::RouteChannel> cyc = t_.cycle_through(c);
  if (cyc.empty()) cyc.push_back(c);
  for (int d = 0; d < n_; ++d)
    if (d != self_ && (route_uses(self_, d, cyc) || route_uses(d, self_, cyc))) mark(d, why, out);
  purge();
}

void RouteLayer::watchdog(fabric::FrameSink& sink) {
  if (watchdog_ns_ == 0) return;
  const uint64_t now = now_ns();
  for (Neighbour& nb : nbs_) {
    for (int v = 0; v < vcs_; ++v) {
      Channel& ch = nb.out[static_cast<size_t>(v)];
      if (nb.lost || ch.empty() || ch.credits > 0) {
        ch.stuck_since_ns = 0;
        continue;
      }
      if (ch.stuck_since_ns == 0) {
        ch.stuck_since_ns = now;
        continue;
      }
      if (now - ch.stuck_since_ns < watchdog_ns_) continue;
      const fabric::RouteChannel c{self_, nb.rank, v};
      const std::string text = deadlock_text(c, self_, (now - ch.stuck_since_ns) * 1e-9);
      IL_LOG(error, text);
      ch.stuck_since_ns = 0;
      Reports out;
      if (deadlocks_seen_.insert({c.from, c.to, c.vc}).second) {
        FrameHeader h;
        h.flags = fabric::kRouteDeadlock;
        h.comm = static_cast<uint64_t>(c.from);
        h.aux = static_cast<uint64_t>(c.to);
        h.seq = static_cast<uint32_t>(c.vc);
        h.tag = self_;
        flood(h, -1);
      }
      deadlock(c, text, out);
      report(out, sink);
      return;  // the report may have changed every queue: look again next round
    }
  }
}

void RouteLayer::report(const Reports& r, fabric::FrameSink& sink) {
  for (const auto& [rank, why] : r) sink.on_peer_lost(rank, why);
}

}  // namespace interlace::route
