// Setting up segments: our control segment, a peer's control segment (which may
// not exist yet), lazily created send rings and their announcement, mapping the
// receive rings that peers announced, and teardown.
#include <sys/syscall.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <new>

#include "fabric/shm/shm_fabric.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::shm {

namespace {
CtlDoorbell* bell_of(CtlHeader* c) {
  return reinterpret_cast<CtlDoorbell*>(reinterpret_cast<std::byte*>(c) + kCtlDoorbellOffset);
}
CtlAnnounce* announce_of(CtlHeader* c) {
  return reinterpret_cast<CtlAnnounce*>(reinterpret_cast<std::byte*>(c) + kCtlAnnounceOffset);
}
std::atomic<uint32_t>* list_of(CtlHeader* c) {
  return reinterpret_cast<std::atomic<uint32_t>*>(reinterpret_cast<std::byte*>(c) + kCtlListOffset);
}
bool pid_gone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }
}  // namespace

void ShmFabric::create_own_ctl() {
  const std::string name = ctl_name(job_, rank_);
  ctl_map_ = create_segment(name, ctl_segment_bytes(size_));
  std::byte* base = ctl_map_.data();
  ctl_ = new (base) CtlHeader{};
  bell_ = new (base + kCtlDoorbellOffset) CtlDoorbell{};
  announce_ = new (base + kCtlAnnounceOffset) CtlAnnounce{};
  announce_list_ = list_of(ctl_);
  ctl_->size = static_cast<uint32_t>(size_);
  ctl_->pid = pid_;
  ctl_->probe = reinterpret_cast<uint64_t>(&ctl_->magic);
  // Published last: an opener that sees the magic sees every field above.
  ctl_->magic.store(kCtlMagic, std::memory_order_release);

  Peer& self = peers_[rank_];
  self.ctl = ctl_;
  self.bell = bell_;
  learn_pid(self, pid_, ctl_->probe, kCtlMagic);
}

void ShmFabric::learn_pid(Peer& p, pid_t pid, uint64_t probe, uint64_t probe_value) {
  if (p.pid != 0) return;
  p.pid = pid;
  p.probe = probe;
  p.probe_value = probe_value;
  // A pidfd turns readable when the process exits, even while it is an unreaped
  // zombie (kill(pid, 0) still succeeds then), and it is immune to pid reuse.
  if (pid != pid_) p.pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  connected_.push_back(static_cast<int>(&p - peers_.data()));
}

// Maps a silent peer's control segment so its pid is watched like a talking peer's.
// True once the peer is connected or known to have departed.
bool ShmFabric::try_open_peer_ctl(int peer) {
  Peer& p = peers_[peer];
  if (p.ctl) return true;
  Mapping m;
  if (open_segment(ctl_name(job_, peer), ctl_segment_bytes(size_), &m) != OpenResult::ok)
    return departed(peer);  // finalized and removed it, or not started yet
  auto* c = reinterpret_cast<CtlHeader*>(m.data());
  if (c->magic.load(std::memory_order_acquire) != kCtlMagic || c->size != static_cast<uint32_t>(size_))
    return false;
  // A gone owner is what we watch for: check_peers reports it as lost.
  const bool gone = pid_gone(c->pid);
  p.ctl = c;
  p.bell = bell_of(c);
  learn_pid(p, c->pid, c->probe, kCtlMagic);
  p.ctl_map = std::move(m);
  if (gone) p.dead = true;
  return true;
}

Errc ShmFabric::open_peer_ctl(int peer) {
  Peer& p = peers_[peer];
  const std::string name = ctl_name(job_, peer);
  const Deadline deadline = Deadline::after(cfg_.connect_timeout_s);
  useconds_t nap = 100;
  for (;;) {
    Mapping m;
    if (open_segment(name, ctl_segment_bytes(size_), &m) == OpenResult::ok) {
      auto* c = reinterpret_cast<CtlHeader*>(m.data());
      if (c->magic.load(std::memory_order_acquire) == kCtlMagic) {
        if (c->size != static_cast<uint32_t>(size_))
          throw_error(Errc::invalid_argument,
                      "shm: rank " + std::to_string(peer) + " runs with job size " +
                          std::to_string(c->size) + " but rank " + std::to_string(rank_) +
                          " with " + std::to_string(size_) + " (job " + job_ + ")");
        // A dead owner is a leftover of an earlier job with the same id (the real
        // owner will replace it) or the peer itself, crashed: departed() tells.
        // A closed one belongs to a peer that is finalizing.
        if (!pid_gone(c->pid) && !c->closed.load(std::memory_order_acquire)) {
          p.ctl = c;
          p.bell = bell_of(c);
          learn_pid(p, c->pid, c->probe, kCtlMagic);
          p.ctl_map = std::move(m);
          if (peer_alive(p)) return Errc::ok;
          p.dead = true;  // exited (unreaped) before we first sent to it
          return Errc::lost_peer;
        }
      }
    }
    // Known from its ring to us and gone since: it will never create the segment.
    if (p.pid != 0 && !peer_alive(p)) {
      p.dead = true;
      return Errc::lost_peer;
    }
    if (departed(peer)) return Errc::lost_peer;
    if (deadline.expired())
      throw_error(Errc::timeout, "shm: rank " + std::to_string(peer) + " did not create " + name +
                                     " within " + std::to_string(cfg_.connect_timeout_s) +
                                     " s (INTERLACE_CONNECT_TIMEOUT); is it running in job " +
                                     job_ + "?");
    usleep(nap);
    nap = std::min<useconds_t>(nap * 2, 10000);
  }
}

Errc ShmFabric::open_send_ring(int peer) {
  Peer& p = peers_[peer];
  if (!p.ctl && open_peer_ctl(peer) != Errc::ok) return Errc::lost_peer;
  const std::string name = ring_name(job_, rank_, peer);
  Mapping m = create_segment(name, ring_segment_bytes(nslots_));
  std::byte* base = m.data();
  auto* h = new (base) RingHeader{};
  new (base + kRingConsumerOffset) RingConsumer{};
  h->nslots = nslots_;
  h->src = static_cast<uint32_t>(rank_);
  h->dst = static_cast<uint32_t>(peer);
  h->producer_pid = pid_;
  h->producer_probe = reinterpret_cast<uint64_t>(&h->magic);
  h->magic = kRingMagic;  // published to the consumer by the release below
  p.out.map = std::move(m);
  p.out.attach(base, nslots_);

  const uint32_t idx = announce_of(p.ctl)->count.fetch_add(1, std::memory_order_acq_rel);
  if (idx >= static_cast<uint32_t>(size_))
    throw_error(Errc::internal, "shm: announcement list of rank " + std::to_string(peer) +
                                    " overflowed at entry " + std::to_string(idx) + " (job size " +
                                    std::to_string(size_) + ")");
  list_of(p.ctl)[idx].store(static_cast<uint32_t>(rank_) + 1, std::memory_order_release);
  IL_LOG(debug, "shm: ring " << name << " created (" << nslots_ << " slots)");
  return Errc::ok;
}

void ShmFabric::scan_announcements() {
  uint32_t count = announce_->count.load(std::memory_order_acquire);
  if (count <= first_unseen_) return;  // the common case: one load of a quiet line
  count = std::min(count, static_cast<uint32_t>(size_));
  for (uint32_t i = first_unseen_; i < count; ++i) {
    if (entry_seen_[i]) continue;
    const uint32_t v = announce_list_[i].load(std::memory_order_acquire);
    if (v == 0) continue;  // sender between fetch_add and publish (or died there)
    entry_seen_[i] = 1;
    map_recv_ring(static_cast<int>(v) - 1);
  }
  while (first_unseen_ < count && entry_seen_[first_unseen_]) ++first_unseen_;
}

void ShmFabric::map_recv_ring(int src) {
  if (src < 0 || src >= size_ || peers_[src].in.open()) {
    IL_LOG(error, "shm: ignoring bogus announcement of rank " << src);
    return;
  }
  Peer& p = peers_[src];
  const std::string name = ring_name(job_, src, rank_);
  Mapping m;
  if (open_segment(name, kRingHeaderBytes, &m) != OpenResult::ok) {
    IL_LOG(error, "shm: rank " << src << " announced " << name << " but it cannot be opened");
    return;
  }
  auto* h = reinterpret_cast<RingHeader*>(m.data());
  const uint32_t ns = h->nslots;
  if (h->magic != kRingMagic || ns < 64 || (ns & (ns - 1)) != 0 ||
      m.bytes() < ring_segment_bytes(ns) || h->src != static_cast<uint32_t>(src) ||
      h->dst != static_cast<uint32_t>(rank_)) {
    IL_LOG(error, "shm: " << name << " has a bad header (nslots " << ns << ", src " << h->src
                          << ", dst " << h->dst << ")");
    return;
  }
  p.in.map = std::move(m);
  p.in.v.attach(p.in.map.data());
  p.in.v.nslots = ns;
  p.in.head = p.in.v.cons->head.load(std::memory_order_relaxed);
  h->consumer_mapped.store(1, std::memory_order_release);
  // Both sides hold a mapping now; the name is no longer needed.
  unlink_segment(name);
  learn_pid(p, h->producer_pid, h->producer_probe, kRingMagic);
  active_.push_back(src);
}

void ShmFabric::close_all() noexcept {
  if (!ctl_) return;
  ctl_->closed.store(1, std::memory_order_release);
  for (int q = 0; q < size_; ++q) {
    Peer& p = peers_[q];
    if (p.out.open() && !p.out.v.hdr->consumer_mapped.load(std::memory_order_acquire)) {
      // Keep an unread ring for a live receiver that has yet to map it (our frames
      // must still arrive); remove it when nobody will ever map it.
      bool gone = q == rank_ || p.dead || p.ctl->closed.load(std::memory_order_acquire) ||
                  pid_gone(p.pid);
      if (gone) unlink_segment(ring_name(job_, rank_, q));
    }
    if (p.pidfd >= 0) close(p.pidfd);
    p.pidfd = -1;
  }
  // Rings announced to us that we never mapped.
  const uint32_t count = std::min(announce_->count.load(), static_cast<uint32_t>(size_));
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t v = announce_list_[i].load(std::memory_order_acquire);
    if (v != 0 && v <= static_cast<uint32_t>(size_) && !peers_[v - 1].in.open())
      unlink_segment(ring_name(job_, static_cast<int>(v) - 1, rank_));
  }
  unlink_segment(ctl_name(job_, rank_));
  release_regions();
  ctl_ = nullptr;
}

}  // namespace interlace::fabric::shm
