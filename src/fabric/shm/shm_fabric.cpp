// ShmFabric construction, the send path and frame delivery. Connection setup is in
// shm_connect.cpp, blocking and liveness in shm_wait.cpp, process_vm_readv in
// shm_single_copy.cpp.
#include "fabric/shm/shm_fabric.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <memory>

namespace interlace::fabric::shm {

namespace {
uint32_t floor_pow2(uint64_t x) noexcept {
  uint32_t p = 1;
  while (p <= x / 2 && p < (1u << 30)) p <<= 1;
  return p;
}
// Largest payload of a ring of nslots: half the ring, so that a frame always fits
// into an empty ring even after skipping the tail end of a lap.
uint64_t ring_max_payload(uint32_t nslots) noexcept {
  return uint64_t{nslots} / 2 * kLine - kFrameOverhead;
}
}  // namespace

ShmFabric::ShmFabric(const FabricInit& init)
    : rank_(init.rank), size_(init.size), cfg_(init.config), store_(init.store) {
  if (size_ < 1 || rank_ < 0 || rank_ >= size_)
    throw_error(Errc::invalid_rank, "shm: rank " + std::to_string(rank_) +
                                        " is not in a job of size " + std::to_string(size_));
  job_ = sanitize_job(init.job_id);
  if (cfg_.shm_ring_bytes < 64 * kLine)
    throw_error(Errc::invalid_argument, "shm: ring size " + std::to_string(cfg_.shm_ring_bytes) +
                                            " bytes (INTERLACE_SHM_RING_BYTES) is below the minimum 4096");
  nslots_ = floor_pow2(cfg_.shm_ring_bytes / kLine);
  max_payload_ = ring_max_payload(nslots_);
  pid_ = getpid();
  // Yama (ptrace_scope=1) would otherwise refuse peers' process_vm_readv on us.
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  cma_ = probe_own_single_copy();
  single_copy_ = cfg_.shm_single_copy && cma_;
  peers_.resize(size_);
  entry_seen_.assign(size_, 0);
  create_own_ctl();
  try {
    publish_record();
  } catch (...) {
    close_all();  // the destructor will not run
    throw;
  }
}

ShmFabric::~ShmFabric() { close_all(); }

Errc ShmFabric::send(int peer, const FrameHeader& h, const void* payload, size_t len) {
  if (static_cast<unsigned>(peer) >= static_cast<unsigned>(size_)) return Errc::invalid_rank;
  if (len > max_payload_) return Errc::invalid_argument;
  Peer& p = peers_[peer];
  if (p.dead) return Errc::lost_peer;
  if (!p.out.open()) [[unlikely]] {
    Errc e = open_send_ring(peer);
    if (e != Errc::ok) return e;
  }
  // A read-mostly line: a receiver that finalized must not be sent frames it will
  // never read (its process may live on, so the pid checks would not notice).
  if (p.ctl->closed.load(std::memory_order_relaxed)) [[unlikely]]
    return lose(p);
  if (p.out.push(h, payload, len) != Errc::ok) [[unlikely]]
    return send_blocked(peer);
  // Pairs with the fence in wait(): either we see `sleeping` or it sees the frame.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (p.bell->sleeping.load(std::memory_order_relaxed)) [[unlikely]]
    ring_doorbell(p.bell);
  return Errc::ok;
}

int ShmFabric::drain(int src, FrameSink& sink, int budget) {
  Peer& p = peers_[src];
  if (p.reported) return 0;
  RecvRing& r = p.in;
  const uint64_t max_len = ring_max_payload(r.v.nslots);
  int delivered = 0;
  while (delivered < budget) {
    const Slot* s = r.peek();
    if (!s) break;
    FrameHeader h;
    std::memcpy(&h, RecvRing::header_of(s), sizeof h);
    std::string bad = validate_header(h, static_cast<uint32_t>(rank_), static_cast<uint32_t>(size_), max_len,
                                      !cfg_.routes_dir.empty());
    if (bad.empty() && slots_for(h.len) > r.slots_to_end())
      bad = "frame of " + std::to_string(h.len) + " bytes runs past the end of the ring";
    if (!bad.empty()) [[unlikely]] {
      // A corrupt ring cannot be resynchronised; treat the sender as lost.
      p.dead = p.reported = true;
      sink.on_peer_lost(src, "protocol: corrupt frame from rank " + std::to_string(src) + ": " + bad);
      return delivered;
    }
    sink.on_frame(h, RecvRing::payload_of(s));
    r.pop(slots_for(h.len));
    ++delivered;
  }
  return delivered;
}

int ShmFabric::progress(FrameSink& sink) {
  scan_announcements();
  const size_t n = active_.size();
  if (n == 0) return 0;
  // Bounded per ring and rotated so one chatty sender cannot starve the others.
  int total = 0;
  size_t start = next_active_ < n ? next_active_ : 0;
  for (size_t i = 0; i < n; ++i) {
    size_t k = start + i;
    if (k >= n) k -= n;
    total += drain(active_[k], sink, 64);
  }
  next_active_ = start + 1;
  return total;
}

}  // namespace interlace::fabric::shm

namespace interlace::fabric {
std::unique_ptr<Fabric> make_shm_fabric(const FabricInit& init) {
  return std::make_unique<shm::ShmFabric>(init);
}
}  // namespace interlace::fabric
