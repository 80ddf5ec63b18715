// The baton (who runs next) and the Fabric calls of the sim fabric. Attaching is in
// sim_attach.cpp, the network model in sim_network.cpp.
#include "sim_fabric.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>

#include "interlace/core/error.hpp"
#include "interlace/core/job_clock.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::sim {

namespace {

void futex_wake_all(std::atomic<uint32_t>* w) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(w), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}
void futex_wait(std::atomic<uint32_t>* w, uint32_t seen, long ns) {
  timespec ts{0, ns};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(w), FUTEX_WAIT, seen, &ts, nullptr, 0);
}

}  // namespace

void SimFabric::lock() {
  int rc = pthread_mutex_lock(&hdr_->mu);
  if (rc == EOWNERDEAD) {
    pthread_mutex_consistent(&hdr_->mu);  // its owner died; check_liveness marks it lost
  } else if (rc != 0) {
    throw_error(Errc::internal, "sim: lock failed: " + std::string(std::strerror(rc)));
  }
}
void SimFabric::unlock() { pthread_mutex_unlock(&hdr_->mu); }

uint64_t SimFabric::real_ns() const {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}
uint64_t SimFabric::thread_cpu_ns() const {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

double SimFabric::virtual_seconds() const {
  return static_cast<double>(clock_ps_.load(std::memory_order_relaxed)) * 1e-12;
}

void SimFabric::charge(double seconds) {
  clock_ps_.fetch_add(static_cast<uint64_t>(seconds * 1e12 + 0.5), std::memory_order_relaxed);
}

void SimFabric::enter() {
  lock();
  const int tid = static_cast<int>(gettid());
  if (m_.measured_compute) {
    const uint64_t now = thread_cpu_ns();
    if (cpu_tid_ == tid && now > cpu_mark_)
      clock_ps_.fetch_add(static_cast<uint64_t>((now - cpu_mark_) * 1000.0 * m_.cpu_scale));
  }
  RankSlot& me = slot(me_);
  me.tid = tid;
  me.inside = 1;
  me.clock_ps = std::max(me.clock_ps, clock_ps_.load(std::memory_order_relaxed));
  if (me.state == kLost) {  // we were taken for dead (stalled far too long); carry on
    me.state = kReady;
  }
  if (hdr_->holder == me_) hdr_->holder = -1;
  me.state = kReady;
  if (hdr_->holder < 0) dispatch();
  await_baton();
  clock_ps_.store(me.clock_ps, std::memory_order_relaxed);
}

void SimFabric::leave() {
  slot(me_).clock_ps = clock_ps_.load(std::memory_order_relaxed);
  slot(me_).inside = 0;
  hdr_->holder_out_ns = real_ns();
  if (m_.measured_compute) {
    cpu_tid_ = static_cast<int>(gettid());
    cpu_mark_ = thread_cpu_ns();
  }
  unlock();
}

void SimFabric::await_baton() {
  const auto start = std::chrono::steady_clock::now();
  while (hdr_->holder != me_) {
    const uint32_t seen = slot(me_).futex.load(std::memory_order_acquire);
    unlock();
    futex_wait(&slot(me_).futex, seen, 20 * 1000 * 1000);
    lock();
    // Set aside while waking up (a stall is judged on real time): still inside, so runnable.
    if (slot(me_).state == kAway) slot(me_).state = kReady;
    check_liveness();
    if (!hdr_->started &&
        std::chrono::steady_clock::now() - start > std::chrono::duration<double>(connect_timeout_s_)) {
      slot(me_).state = kAway;
      const uint32_t got = hdr_->attached;
      unlock();
      throw_error(Errc::timeout, "sim: only " + std::to_string(got) + " of " + std::to_string(n_) +
                                     " ranks attached within " + std::to_string(connect_timeout_s_) + " s");
    }
  }
}

// Called with the lock held while waiting: finds dead processes, ended threads and a
// holder that stays outside the fabric too long, so a waiting rank never hangs.
void SimFabric::check_liveness() {
  bool changed = false;
  for (int r = 0; r < n_; ++r) {
    RankSlot& s = slot(r);
    if (r == me_ || s.state == kAbsent || s.state == kDone || s.state == kLost) continue;
    bool dead = false, gone = false;
    if (s.pid != pid_) {
      dead = kill(s.pid, 0) != 0 && errno == ESRCH;
    } else if (r == hdr_->holder && s.tid > 0) {
      // Its thread ended, or it is this very thread (one thread driving several ranks):
      // either way nobody will bring the baton back.
      gone = s.tid == static_cast<int32_t>(gettid()) ||
             (syscall(SYS_tgkill, s.pid, s.tid, 0) != 0 && errno == ESRCH);
    }
    if (dead) {
      s.state = kLost;
      if (hdr_->holder == r) hdr_->holder = -1;
      // Blocked ranks return from wait() at once, to report the loss.
      for (int b = 0; b < n_; ++b)
        if (slot(b).state == kBlocked) slot(b).deadline_ps = slot(b).clock_ps, slot(b).timer = 0;
      changed = true;
    } else if (r == hdr_->holder && s.state == kRunning && !s.inside &&
               (gone || real_ns() - hdr_->holder_out_ns > static_cast<uint64_t>(m_.stall_s * 1e9))) {
      if (!gone) {
        hdr_->stalls++;
        IL_LOG(warn, "sim: rank " << r << " held the baton outside the fabric for more than "
                                   << m_.stall_s << " s; running the others (INTERLACE_SIM_STALL)");
      }
      s.state = kAway;
      hdr_->holder = -1;
      changed = true;
    }
  }
  if (hdr_->holder < 0 && (changed || hdr_->started)) dispatch();
}

void SimFabric::dispatch() {
  if (!hdr_->started) return;
  for (;;) {
    int best = -1;
    uint64_t best_t = UINT64_MAX;
    for (int r = 0; r < n_; ++r) {
      const RankSlot& s = slot(r);
      uint64_t t;
      if (s.state == kReady) t = s.clock_ps;
      else if (s.state == kBlocked) t = s.deadline_ps;
      else continue;
      if (t < best_t) best = r, best_t = t;
    }
    Event e;
    if (pop_event_before(best < 0 ? UINT64_MAX : best_t, e)) {
      process(e);
      continue;
    }
    if (best < 0) return;
    RankSlot& s = slot(best);
    // Nothing in flight and nobody ready: the job can change only through something
    // outside the simulation (wake(), a rank away from the fabric), so a timeout also
    // waits on the real clock, as it would on any fabric, instead of spinning.
    if (s.state == kBlocked && s.timer && hdr_->heap_size == 0 && real_ns() < s.real_deadline_ns) {
      bool ready = false;
      for (int r = 0; r < n_; ++r) ready = ready || slot(r).state == kReady;
      if (!ready) return;
    }
    if (s.state == kBlocked) s.clock_ps = std::max(s.clock_ps, s.deadline_ps);
    s.state = kRunning;
    hdr_->holder = best;
    hdr_->holder_out_ns = real_ns();
    if (best != me_) {
      hdr_->handovers++;
      s.futex.fetch_add(1, std::memory_order_release);
      futex_wake_all(&s.futex);
    }
    return;
  }
}

Errc SimFabric::send(int peer, const FrameHeader& h, const void* payload, size_t len) {
  if (peer < 0 || peer >= n_)
    throw_error(Errc::invalid_argument, "sim: send to rank " + std::to_string(peer) + " of " + std::to_string(n_));
  if (len > max_payload_)
    throw_error(Errc::invalid_argument, "sim: frame of " + std::to_string(len) + " bytes exceeds " +
                                            std::to_string(max_payload_));
  const bool outer = depth_++ == 0;
  if (outer) enter();
  Errc rc = Errc::ok;
  const uint32_t st = slot(peer).state;
  Pair& p = pair(me_, peer);
  const uint64_t need = (len + 63) & ~uint64_t{63};
  uint64_t pos = p.btail % layout_.ring_bytes;
  const uint64_t pad = pos + need > layout_.ring_bytes ? layout_.ring_bytes - pos : 0;
  if (st == kLost) {
    rc = Errc::lost_peer;
  } else if (st == kDone) {
    // A finished peer reads nothing more: the frame goes nowhere.
  } else if (p.dtail - p.dhead >= layout_.ndesc || p.btail + pad + need - p.bhead > layout_.ring_bytes) {
    rc = Errc::would_block;
    stall_refused_send();
  } else {
    const uint32_t idx = static_cast<uint32_t>(p.dtail % layout_.ndesc);
    Desc& d = descs(me_, peer)[idx];
    d = Desc{};
    d.h = h;
    d.h.len = len;
    d.off = p.btail + pad;
    d.alloc = pad + need;
    if (len) std::memcpy(ring(me_, peer) + d.off % layout_.ring_bytes, payload, len);
    p.btail += pad + need;
    p.dtail++;
    inject(peer, idx);
  }
  if (outer) leave();
  --depth_;
  return rc;
}

int SimFabric::progress(FrameSink& sink) {
  const bool outer = depth_++ == 0;
  if (outer) enter();
  int delivered = 0;
  const uint64_t now = clock_ps_.load(std::memory_order_relaxed);
  for (;;) {
    // Among the sources, the frame that arrived first (lowest source on a tie).
    int src = -1;
    uint64_t best = UINT64_MAX;
    for (int s = 0; s < n_; ++s) {
      Pair& p = pair(s, me_);
      if (p.dhead == p.dtail) continue;
      const Desc& d = descs(s, me_)[p.dhead % layout_.ndesc];
      if (d.state == kDelivered && d.deliver_ps <= now && d.deliver_ps < best) src = s, best = d.deliver_ps;
    }
    if (src < 0) break;
    Pair& p = pair(src, me_);
    Desc d = descs(src, me_)[p.dhead % layout_.ndesc];
    sink.on_frame(d.h, ring(src, me_) + d.off % layout_.ring_bytes);
    p.dhead++;
    p.bhead += d.alloc;
    ++delivered;
  }
  report_lost(sink);
  if (delivered == 0) {
    // A poll that finds nothing costs poll_ps. Nothing can arrive before quiet_until()
    // (conservative lookahead), so the polls until then are charged at once: the same
    // virtual times as polling one by one, without a baton hand-over per poll.
    const uint64_t poll = std::max<uint64_t>(1, static_cast<uint64_t>(m_.poll_ps));
    const uint64_t bound = quiet_until();
    const uint64_t k = bound > now + poll ? (bound - now - 1) / poll : 1;
    clock_ps_.store(now + std::max<uint64_t>(k, 1) * poll, std::memory_order_relaxed);
  }
  if (outer) leave();
  --depth_;
  return delivered;
}

void SimFabric::wait(double timeout_s) {
  if (depth_ > 0) return;
  enter();
  RankSlot& me = slot(me_);
  const uint64_t now = clock_ps_.load(std::memory_order_relaxed);
  bool ready = me.woken != 0;
  for (int s = 0; s < n_ && !ready; ++s) {
    Pair& p = pair(s, me_);
    if (p.dhead != p.dtail && descs(s, me_)[p.dhead % layout_.ndesc].state == kDelivered) ready = true;
    if (slot(s).state == kLost && !lost_reported_[s]) ready = true;
  }
  me.woken = 0;
  if (!ready) {
    const double t = std::max(0.0, std::min(timeout_s, 3600.0));
    me.state = kBlocked;
    me.deadline_ps = now + static_cast<uint64_t>(t * 1e12);
    me.timer = 1;
    me.real_deadline_ns = real_ns() + static_cast<uint64_t>(t * 1e9);
    hdr_->holder = -1;
    dispatch();
    await_baton();
    clock_ps_.store(me.clock_ps, std::memory_order_relaxed);
  }
  leave();
}

// The pair's buffers are full: room comes back only when a network event delivers a
// frame and the receiver, running at its own virtual time, consumes it. A caller that
// retries the send without progress (PGAS active messages do) must still see time
// pass, as it would on hardware; at a fixed virtual time it stays the earliest rank and
// gets the baton back for ever (a livelock). So a refusal waits, like a poll, until the
// next moment anything can change: the next network event or another rank's turn.
void SimFabric::stall_refused_send() {
  const uint64_t now = clock_ps_.load(std::memory_order_relaxed);
  uint64_t bound = next_event_time();
  for (int r = 0; r < n_; ++r) {
    if (r == me_) continue;
    const RankSlot& s = slot(r);
    if (s.state == kReady || s.state == kRunning || s.state == kAway) bound = std::min(bound, s.clock_ps);
    else if (s.state == kBlocked) bound = std::min(bound, s.deadline_ps);
  }
  const uint64_t poll = std::max<uint64_t>(1, static_cast<uint64_t>(m_.poll_ps));
  clock_ps_.store(bound != UINT64_MAX && bound > now + poll ? bound : now + poll, std::memory_order_relaxed);
}

uint64_t SimFabric::quiet_until() const {
  // The soonest another rank's send can reach this one: send, first injection, one hop
  // and the receiving endpoint.
  // With variable-size packets an empty frame's packet is shorter than a full one.
  const double inject = m_.fixed_packets ? m_.inject_ps : m_.inject_ps - m_.inject_payload_ps;
  const double ser = m_.fixed_packets ? m_.link_ps_per_packet : m_.link_ps_per_packet - m_.link_payload_ps;
  const uint64_t lookahead =
      static_cast<uint64_t>(m_.send_ps + inject + ser + m_.link_latency_ps + m_.router_ps + m_.recv_ps);
  uint64_t bound = next_event_time();
  for (int r = 0; r < n_; ++r) {
    if (r == me_) continue;
    const RankSlot& s = slot(r);
    uint64_t t;
    if (s.state == kReady || s.state == kRunning || s.state == kAway) t = s.clock_ps;
    else if (s.state == kBlocked) t = s.deadline_ps;
    else if (s.state == kAbsent) t = 0;
    else continue;
    bound = std::min(bound, t > UINT64_MAX - lookahead ? UINT64_MAX : t + lookahead);
  }
  return bound;
}

void SimFabric::wake() {
  lock();
  RankSlot& me = slot(me_);
  me.woken = 1;
  if (me.state == kBlocked) me.deadline_ps = me.clock_ps, me.timer = 0;
  if (hdr_->holder < 0) dispatch();
  unlock();
}

void SimFabric::check_peers(FrameSink& sink) {
  if (depth_ > 0) return;
  lock();  // no baton: reporting a loss does not move virtual time
  check_liveness();
  report_lost(sink);
  unlock();
}

void SimFabric::report_lost(FrameSink& sink) {
  for (int r = 0; r < n_; ++r) {
    if (lost_reported_[r] || slot(r).state != kLost) continue;
    const Pair& p = pair(r, me_);
    if (p.dhead != p.dtail) continue;  // deliver what it sent before dying first
    lost_reported_[r] = true;
    sink.on_peer_lost(r, "sim: rank " + std::to_string(r) + " (pid " + std::to_string(slot(r).pid) +
                             ") died");
  }
}

std::unique_ptr<Fabric> make_sim_fabric(const FabricInit& init) { return std::make_unique<SimFabric>(init); }

}  // namespace interlace::fabric::sim
