// The simulated fabric (docs/sim.md): a discrete-event model of an FPGA network in
// virtual time. Exactly one rank of a job runs at a time (it holds the baton); the
// runnable rank with the lowest virtual time goes next, rank id breaking ties, so a
// program's virtual times do not depend on the host. Network events (packet trains
// crossing links) are processed in virtual-time order by whichever rank holds the
// baton. Frames are carried by value in per-pair rings of the shared segment.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "interlace/fabric/fabric.hpp"
#include "interlace/fabric/route_table.hpp"
#include "sim_preset.hpp"
#include "sim_state.hpp"

namespace interlace::fabric::sim {

class SimFabric final : public Fabric {
 public:
  explicit SimFabric(const FabricInit& init);
  ~SimFabric() override;

  const char* name() const noexcept override { return "sim"; }
  int rank() const noexcept override { return me_; }
  int size() const noexcept override { return n_; }
  bool routes_itself() const noexcept override { return true; }
  bool prefers_blocking() const noexcept override { return true; }
  size_t max_payload() const noexcept override { return max_payload_; }

  Errc send(int peer, const FrameHeader& h, const void* payload, size_t len) override;
  int progress(FrameSink& sink) override;
  void wait(double timeout_s) override;
  void wake() override;
  void check_peers(FrameSink& sink) override;

  double virtual_seconds() const;
  void charge(double seconds);

 private:
  // Scheduling (sim_fabric.cpp).
  void lock();
  void unlock();
  void enter();   // lock, account compute, take the baton at this rank's time
  void leave();   // note the time, unlock
  void await_baton();
  void dispatch();  // holder == -1: run events, hand the baton to the earliest rank
  void check_liveness();
  uint64_t real_ns() const;
  uint64_t thread_cpu_ns() const;
  void report_lost(FrameSink& sink);

  // Network model (sim_network.cpp).
  void inject(int dst, uint32_t idx);
  void process(const Event& e);
  void push_event(uint64_t t, int src, int dst, uint32_t idx, int node);
  bool pop_event_before(uint64_t limit, Event& out);
  uint64_t next_event_time() const;  // UINT64_MAX when none
  uint64_t quiet_until() const;      // nothing can reach this rank before then
  void stall_refused_send();         // a send found the pair's buffers full

  RankSlot& slot(int r) const { return ranks_[r]; }
  Pair& pair(int s, int d) const;
  Desc* descs(int s, int d) const;
  std::byte* ring(int s, int d) const;

  Model m_;
  RouteTable routes_;
  int me_ = 0, n_ = 1;
  std::string seg_name_;
  void* base_ = nullptr;
  size_t seg_bytes_ = 0;
  Header* hdr_ = nullptr;
  RankSlot* ranks_ = nullptr;
  uint64_t* link_free_ = nullptr;  // [n*n], per directed link a->b
  Event* heap_ = nullptr;
  size_t max_payload_ = 0;
  Layout layout_;
  std::atomic<uint64_t> clock_ps_{0};
  uint64_t cpu_mark_ = 0;
  int cpu_tid_ = 0;
  int depth_ = 0;  // fabric calls nested through the sink (on_frame -> send)
  std::vector<bool> lost_reported_;
  double connect_timeout_s_ = 30;
  int pid_ = 0;
};

}  // namespace interlace::fabric::sim
