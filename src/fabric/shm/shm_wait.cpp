// Blocking, waking and peer liveness. The futexes are shared (no FUTEX_PRIVATE_FLAG)
// because the doorbell lives in a segment mapped by other processes.
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "fabric/shm/shm_fabric.hpp"
#include "interlace/core/clock.hpp"

namespace interlace::fabric::shm {

namespace {
uint32_t* futex_word(std::atomic<uint32_t>* a) { return reinterpret_cast<uint32_t*>(a); }

void futex_wait(std::atomic<uint32_t>* a, uint32_t expected, double timeout_s) {
  timespec ts{};
  timespec* tsp = nullptr;
  if (timeout_s >= 0) {
    ts.tv_sec = static_cast<time_t>(timeout_s);
    ts.tv_nsec = static_cast<long>((timeout_s - static_cast<double>(ts.tv_sec)) * 1e9);
    tsp = &ts;
  }
  // EAGAIN (value changed), EINTR and ETIMEDOUT all just mean "return": wait() may
  // return spuriously and callers re-check.
  syscall(SYS_futex, futex_word(a), FUTEX_WAIT, expected, tsp, nullptr, 0);
}

// Without a pidfd, an exited but unreaped peer still answers kill(pid, 0).
bool is_zombie(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  char buf[256];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char* paren = std::strrchr(buf, ')');  // the command name may contain spaces
  return paren && paren[1] == ' ' && paren[2] == 'Z';
}

void futex_wake_all(std::atomic<uint32_t>* a) {
  syscall(SYS_futex, futex_word(a), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}
}  // namespace

void ShmFabric::ring_doorbell(CtlDoorbell* bell) noexcept {
  // exchange: of several producers that saw the flag, only one pays the syscall.
  if (bell->sleeping.exchange(0, std::memory_order_acq_rel) == 0) return;
  bell->doorbell.fetch_add(1, std::memory_order_release);
  futex_wake_all(&bell->doorbell);
}

void ShmFabric::wake() {
  wake_pending_.store(1, std::memory_order_seq_cst);
  bell_->doorbell.fetch_add(1, std::memory_order_seq_cst);
  futex_wake_all(&bell_->doorbell);
}

bool ShmFabric::anything_ready() {
  scan_announcements();
  for (int src : active_) {
    Peer& p = peers_[src];
    if (!p.reported && p.in.peek()) return true;
  }
  return false;
}

void ShmFabric::wait(double timeout_s) { wait_unless(timeout_s, nullptr, false); }

void ShmFabric::wait_unless(double timeout_s, const std::function<bool()>& ready, bool memory) {
  // Read the doorbell before checking anything: a wake() or frame after this point
  // changes it, so the futex_wait below cannot sleep through it.
  const uint32_t seq = bell_->doorbell.load(std::memory_order_seq_cst);
  if (wake_pending_.exchange(0, std::memory_order_seq_cst)) return;
  if (anything_ready() || timeout_s == 0) return;
  bell_->sleeping.store(1, std::memory_order_relaxed);
  if (memory) bell_->mem_waiting.store(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // ready() after the fence pairs with notify(): a direct writer fences, then looks
  // at `sleeping`; so either it rings the doorbell or ready() sees its store.
  if (!anything_ready() && !wake_pending_.load(std::memory_order_seq_cst) &&
      !(ready && ready()))
    futex_wait(&bell_->doorbell, seq, timeout_s);
  if (memory) bell_->mem_waiting.store(0, std::memory_order_relaxed);
  bell_->sleeping.store(0, std::memory_order_relaxed);
  wake_pending_.store(0, std::memory_order_relaxed);
}

// The progress thread's sleep: wait_unless() split so that only the futex wait runs
// without the engine's lock. arm_sleep() does what touches rings and peers
// (scan_announcements) while the caller still holds the fabric alone.
bool ShmFabric::arm_sleep() {
  armed_seq_ = bell_->doorbell.load(std::memory_order_seq_cst);
  if (wake_pending_.exchange(0, std::memory_order_seq_cst)) return false;
  if (anything_ready()) return false;
  // The announcement senders look for (send(): fence, then `sleeping`).
  bell_->sleeping.store(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (anything_ready() || wake_pending_.load(std::memory_order_seq_cst)) {
    bell_->sleeping.store(0, std::memory_order_relaxed);
    return false;
  }
  return true;
}

void ShmFabric::sleep_armed(double timeout_s) {
  // A frame or wake() since arm_sleep() bumped the doorbell: the futex refuses to sleep.
  futex_wait(&bell_->doorbell, armed_seq_, timeout_s);
}

void ShmFabric::disarm_sleep() {
  bell_->sleeping.store(0, std::memory_order_relaxed);
  wake_pending_.store(0, std::memory_order_relaxed);
}

void ShmFabric::notify(int peer) {
  if (static_cast<unsigned>(peer) >= static_cast<unsigned>(size_)) return;
  Peer& p = peers_[peer];
  if (!p.bell && !try_open_peer_ctl(peer)) return;
  if (p.bell && p.bell->mem_waiting.load(std::memory_order_relaxed)) [[unlikely]]
    ring_doorbell(p.bell);
}

bool ShmFabric::peer_alive(Peer& p) noexcept {
  if (p.pid == 0 || p.pid == pid_) return true;  // threads-as-ranks: never dead
  if (p.pidfd >= 0) {
    pollfd f{p.pidfd, POLLIN, 0};
    return poll(&f, 1, 0) == 0;
  }
  if (kill(p.pid, 0) != 0 && errno == ESRCH) return false;
  return !is_zombie(p.pid);
}

uint64_t ShmFabric::peer_check_ns() const noexcept {
  return static_cast<uint64_t>(std::max(cfg_.peer_check_s, 0.001) * 1e9);
}

Errc ShmFabric::lose(Peer& p) {
  if (p.why.empty() && !p.dead)
    p.why = "rank " + std::to_string(&p - peers_.data()) + " (pid " + std::to_string(p.pid) +
            ") finalized (closed its shm fabric)";
  p.dead = true;
  return Errc::lost_peer;
}

Errc ShmFabric::send_blocked(int peer) {
  // A full ring towards a dead receiver would otherwise stay would_block forever.
  Peer& p = peers_[peer];
  const uint64_t now = now_ns();
  if (now < p.next_live_check_ns) return Errc::would_block;
  p.next_live_check_ns = now + peer_check_ns();
  if (peer_alive(p)) return Errc::would_block;
  p.dead = true;
  return Errc::lost_peer;
}

void ShmFabric::watch_peer(int peer) {
  if (peer < 0 || peer >= size_ || peer == rank_ || peers_[peer].pid != 0) return;
  if (std::find(watched_.begin(), watched_.end(), peer) == watched_.end()) watched_.push_back(peer);
}

void ShmFabric::check_peers(FrameSink& sink) {
  // A peer that died right after announcing a ring must still have its frames drained.
  scan_announcements();
  for (size_t i = 0; i < watched_.size();) {
    if (peers_[watched_[i]].pid != 0 || try_open_peer_ctl(watched_[i])) {
      watched_.erase(watched_.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
  for (size_t i = 0; i < connected_.size(); ++i) {  // the sink may connect new peers
    const int q = connected_[i];
    Peer& p = peers_[q];
    if (p.reported || q == rank_) continue;
    if (!p.dead) {
      // Known only from its ring to us: map its control segment to see it close.
      if (!p.ctl) try_open_peer_ctl(q);
      if (!p.dead && p.ctl && p.ctl->closed.load(std::memory_order_acquire)) lose(p);
      if (!p.dead && peer_alive(p)) continue;
      p.dead = true;
    }
    // Departed before we mapped its ring: its announcement precedes its departure,
    // which we have just seen, so a second look finds the ring and its frames.
    if (!p.in.open()) scan_announcements();
    if (p.in.open()) drain(q, sink, INT_MAX);
    active_.erase(std::remove(active_.begin(), active_.end(), q), active_.end());
    if (p.reported) continue;  // drain found a corrupt frame and said so
    p.reported = true;
    sink.on_peer_lost(q, !p.why.empty() ? p.why
                                         : "rank " + std::to_string(q) + " (pid " +
                                               std::to_string(p.pid) + ") exited");
  }
}

}  // namespace interlace::fabric::shm
