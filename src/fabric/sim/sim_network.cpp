// The network model of the sim fabric (docs/sim.md, "Network model"). A frame is a
// train of packets; an event is the train's head reaching a node (or the whole train
// reaching its destination endpoint). Links are directed and serialise trains one
// after another (first come, first served in virtual time); a train's packets are
// spaced by the slowest stage it crossed (injection at the sender's CKS, or a link).
// Finite buffers: a train that must wait for a busy link holds the link it came from
// until all but `buffer_packets` of its packets fit downstream (credit back-pressure).
#include <algorithm>
#include <cmath>

#include "sim_fabric.hpp"

namespace interlace::fabric::sim {

namespace {
bool later(const Event& a, const Event& b) { return a.t_ps != b.t_ps ? a.t_ps > b.t_ps : a.seq > b.seq; }

// A PGAS active message of GASNet's "short" category carries only its arguments, which
// the sender has in registers: FSHMEM sends it without reading memory (Table III:
// 0.21 us against 0.35 us for a long one). Kinds and categories as in
// src/pgas/pgas_state.hpp (kKindRequest/kKindReply, Category::kShort in flags);
// tests/sim/sim_fshmem_figures_test.cpp fails if they drift.
bool short_active_message(const FrameHeader& h) { return (h.kind == 48 || h.kind == 49) && h.flags == 0; }
}  // namespace

void SimFabric::push_event(uint64_t t, int src, int dst, uint32_t idx, int node) {
  Event e{t, hdr_->seq++, static_cast<uint32_t>(src), static_cast<uint32_t>(dst), idx, node};
  // Capacity: one event per live descriptor, which the pair rings bound.
  heap_[hdr_->heap_size++] = e;
  std::push_heap(heap_, heap_ + hdr_->heap_size, later);
}

uint64_t SimFabric::next_event_time() const { return hdr_->heap_size ? heap_[0].t_ps : UINT64_MAX; }

bool SimFabric::pop_event_before(uint64_t limit, Event& out) {
  if (hdr_->heap_size == 0 || heap_[0].t_ps > limit) return false;
  std::pop_heap(heap_, heap_ + hdr_->heap_size, later);
  out = heap_[--hdr_->heap_size];
  return true;
}

void SimFabric::inject(int dst, uint32_t idx) {
  Desc& d = descs(me_, dst)[idx];
  RankSlot& me = slot(me_);
  const double bytes = static_cast<double>(d.h.len) + m_.frame_header_bytes;
  d.packets = static_cast<uint32_t>(std::max(1.0, std::ceil(bytes / m_.payload_bytes)));
  d.state = kInFlight;
  d.prev_link = -1;
  // Variable-size packets (fixed_packets 0): a frame that fits one packet is only as
  // long as its bytes, on the link and through a per-byte datapath (a header-only
  // active message takes a few cycles, not a full packet's).
  double head_inject = m_.inject_ps, head_ser = m_.link_ps_per_packet;
  if (!m_.fixed_packets && d.packets == 1 && bytes < m_.payload_bytes) {
    head_inject -= m_.inject_payload_ps * (1 - bytes / m_.payload_bytes);
    head_ser -= m_.link_payload_ps * (1 - bytes / m_.payload_bytes);
  }
  d.head_ser_ps = static_cast<uint32_t>(head_ser);
  double interval = m_.inject_ps;
  if (m_.window > 0) {
    // At most `window` packets unacknowledged: one window per round trip at best.
    const int hops = routes_.hops(me_, dst);
    const double rtt = 2 * (hops * (m_.link_ps_per_packet + m_.link_latency_ps + m_.router_ps) +
                            m_.send_ps + m_.recv_ps);
    interval = std::max(interval, rtt / m_.window);
  }
  const uint64_t now = clock_ps_.load(std::memory_order_relaxed);
  const double send = m_.send_ps + (short_active_message(d.h) ? 0 : m_.data_send_ps);
  const uint64_t start = std::max(now + static_cast<uint64_t>(send), me.cks_free_ps);
  d.interval_ps = static_cast<uint64_t>(interval);
  // The sender drains no faster than its link takes packets (credit back-pressure from
  // the first hop): otherwise a fast injector with a per-frame start-up cost (send_ns)
  // would find its CKS idle at every frame and pay the start-up on each, serially.
  const double drain = std::max(interval, m_.link_ps_per_packet);
  const double busy = d.packets == 1 ? std::max(head_inject, head_ser) : d.packets * drain;
  me.cks_free_ps = start + static_cast<uint64_t>(busy);
  // The sending kernel stalls once its FIFO into the CKS is full.
  const uint64_t slack = static_cast<uint64_t>(m_.buffer_packets * drain);
  if (me.cks_free_ps > now + slack) clock_ps_.store(me.cks_free_ps - slack, std::memory_order_relaxed);
  push_event(start + static_cast<uint64_t>(head_inject), me_, dst, idx, me_);
}

void SimFabric::process(const Event& e) {
  hdr_->events++;
  const int src = static_cast<int>(e.src), dst = static_cast<int>(e.dst);
  Desc& d = descs(src, dst)[e.idx];
  if (e.node < 0) {  // the last packet reached the destination endpoint
    Pair& p = pair(src, dst);
    d.deliver_ps = std::max(e.t_ps, p.last_deliver_ps);
    p.last_deliver_ps = d.deliver_ps;
    d.state = kDelivered;
    RankSlot& r = slot(dst);
    if (r.state == kBlocked && r.deadline_ps > d.deliver_ps) {
      r.deadline_ps = std::max(r.clock_ps, d.deliver_ps);
      r.timer = 0;
    }
    return;
  }
  const int v = e.node;
  if (v == dst) {
    const uint64_t tail = e.t_ps + (d.packets - 1) * d.interval_ps + static_cast<uint64_t>(m_.recv_ps);
    push_event(tail, src, dst, e.idx, -1);
    return;
  }
  const int w = routes_.next(v, dst);
  const uint64_t ser = static_cast<uint64_t>(m_.link_ps_per_packet);
  const uint64_t interval = std::max<uint64_t>(d.interval_ps, ser);
  if (m_.switched) {
    // Through a switch: v's port into it and w's port out of it are each one link, so
    // trains from many senders to one receiver queue at its port (incast), and one
    // sender's trains to many receivers at its own. Cut-through: the train goes once
    // both ports are free and holds both while it passes.
    uint64_t& up = link_free_[v * n_ + v];
    uint64_t& down = link_free_[n_ * n_ + w];
    const uint64_t start = std::max({e.t_ps, up, down});
    up = down = start + d.packets * interval;
    hdr_->packets += d.packets;
    d.interval_ps = interval;
    push_event(start + d.head_ser_ps + static_cast<uint64_t>(m_.link_latency_ps + m_.router_ps), src, dst, e.idx, w);
    return;
  }
  const int link = v * n_ + w;
  const uint64_t start = std::max(e.t_ps, link_free_[link]);
  if (start > e.t_ps && d.prev_link >= 0 && d.packets > m_.buffer_packets) {
    const uint64_t held = start + static_cast<uint64_t>((d.packets - m_.buffer_packets) * interval);
    link_free_[d.prev_link] = std::max(link_free_[d.prev_link], held);
  }
  link_free_[link] = start + d.packets * interval;
  hdr_->packets += d.packets;
  d.interval_ps = interval;
  d.prev_link = link;
  push_event(start + d.head_ser_ps + static_cast<uint64_t>(m_.link_latency_ps + m_.router_ps), src, dst, e.idx, w);
}

}  // namespace interlace::fabric::sim
