// The route layer's state (route_layer.cpp: data path; route_control.cpp: credits,
// lost ranks, the watchdog; route_leave.cpp: the collective teardown).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "interlace/core/config.hpp"
#include "interlace/fabric/fabric.hpp"
#include "interlace/fabric/route_table.hpp"

namespace interlace::route {

// A frame this rank holds: a transit frame (from = the neighbour index it came from,
// owed a credit once it leaves) or one injected here (from = -1).
struct Held {
  fabric::FrameHeader h;
  std::vector<std::byte> payload;
  int from = -1;
};

// One outgoing channel: a directed link to a neighbour on one VC.
struct Channel {
  int credits = 0;
  std::deque<Held> transit, injected;
  bool injected_turn = false;  // round-robin between transit and injected frames
  uint64_t stuck_since_ns = 0;  // frames waiting and no credit since then (0: not stuck)
  bool empty() const { return transit.empty() && injected.empty(); }
};

struct Neighbour {
  int rank = 0;
  std::vector<Channel> out;  // per VC
  std::vector<uint32_t> owed;  // per VC: credits to hand back to this neighbour
  std::deque<fabric::FrameHeader> control;  // control frames the inner fabric refused
  bool lost = false;
};

class RouteLayer;

// Sits between the inner fabric and the engine's sink for one call.
class InnerSink final : public fabric::FrameSink {
 public:
  InnerSink(RouteLayer& l, fabric::FrameSink& outer) : layer_(l), outer_(outer) {}
  void on_frame(const fabric::FrameHeader& h, const std::byte* payload) override;
  void on_peer_lost(int peer, const std::string& why) override;

 private:
  RouteLayer& layer_;
  fabric::FrameSink& outer_;
};

class RouteLayer final : public fabric::Fabric {
 public:
  RouteLayer(std::unique_ptr<fabric::Fabric> inner, fabric::RouteTable table, const Config& cfg);
  ~RouteLayer() override;

  const char* name() const noexcept override { return inner_->name(); }
  int rank() const noexcept override { return self_; }
  int size() const noexcept override { return n_; }
  bool routes_itself() const noexcept override { return true; }
  size_t max_payload() const noexcept override { return inner_->max_payload(); }
  Errc send(int peer, const fabric::FrameHeader& h, const void* payload, size_t len) override;
  int progress(fabric::FrameSink& sink) override;
  void wait(double timeout_s) override;
  void wake() override { inner_->wake(); }
  void check_peers(fabric::FrameSink& sink) override;
  bool sleeps_concurrently() const noexcept override { return inner_->sleeps_concurrently(); }
  bool arm_sleep() override;
  void sleep_armed(double timeout_s) override;
  void disarm_sleep() override;
  void watch_peer(int peer) override;

  // InnerSink's entries.
  int on_inner_frame(const fabric::FrameHeader& h, const std::byte* payload, fabric::FrameSink& outer);
  void on_neighbour_lost(int peer, const std::string& why, fabric::FrameSink& outer);

 private:
  using Reports = std::vector<std::pair<int, std::string>>;

  int nb_of(int rank) const { return nb_index_[static_cast<size_t>(rank)]; }
  int arrived_from(int src, int dst) const;  // neighbour index a pair's frames come in on
  bool route_uses(int src, int dst, int rank) const;  // rank on the path, ends included
  bool route_uses(int src, int dst, const std::vector<fabric::RouteChannel>& chans) const;

  // route_layer.cpp
  void transit(Held&& f, int nb, int vc);
  int pump();
  void return_credits();

  // route_control.cpp
  void send_control(Neighbour& nb, fabric::FrameHeader h);
  void flood(const fabric::FrameHeader& h, int except_nb);
  void on_control(const fabric::FrameHeader& h, int from_nb, Reports& out);
  void rank_lost(int rank, const std::string& why, Reports& out);
  void mark(int rank, const std::string& why, Reports& out);
  void purge();
  void watchdog(fabric::FrameSink& sink);
  void deadlock(const fabric::RouteChannel& c, const std::string& why, Reports& out);
  std::string deadlock_text(const fabric::RouteChannel& c, int reporter, double waited) const;
  static void report(const Reports& r, fabric::FrameSink& sink);

  // route_leave.cpp
  void leave();
  bool all_done(const std::vector<uint8_t>& flags) const;
  bool controls_sent() const;

  std::unique_ptr<fabric::Fabric> inner_;
  fabric::RouteTable t_;
  int self_ = 0, n_ = 1, vcs_ = 1;
  int credits_ = 8;
  uint64_t watchdog_ns_ = 0;
  double connect_timeout_s_ = 30, peer_check_s_ = 0.2;
  std::vector<int> nb_index_;  // rank -> index in nbs_, -1 if not a neighbour
  std::vector<Neighbour> nbs_;
  std::vector<uint8_t> lost_;  // ranks reported lost (or unreachable) to the engine
  std::vector<uint8_t> flooded_lost_;  // ranks whose loss notice this rank passed on
  std::set<std::tuple<int, int, int>> deadlocks_seen_;
  size_t rr_ = 0;  // neighbour the next pump starts at
  size_t waiting_ = 0;  // frames held in channels
  // arm_sleep() .. disarm_sleep(): a send() meanwhile may park a frame in a channel that
  // only progress() forwards, so it wakes the sleeper (once per sleep).
  std::atomic<bool> armed_{false};
  double armed_cap_s_ = -1;
  double wait_cap_s(bool* poll) const;  // -1: none; *poll: a full inner link drains unseen
  // Teardown (route_leave.cpp): fins received per source, completes per rank.
  bool leaving_ = false;
  std::vector<uint8_t> fin_, complete_;
};

}  // namespace interlace::route
