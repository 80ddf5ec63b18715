#include "interlace/engine/context.hpp"
#include "interlace/fabric/registry.hpp"
#include "interlace/fabric/route_table.hpp"
#include "interlace/fabric/tiers.hpp"
#include "interlace/route/route_layer.hpp"

#include <sched.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "interlace/core/blocking.hpp"
#include "interlace/core/host_cpus.hpp"
#include "interlace/core/log.hpp"

namespace interlace::engine {

namespace {

// Picks the fabric, per peer (docs/fabrics.md "Two tiers"): with both a host and a
// network fabric in play (INTERLACE_FABRIC=auto or HOST+NET), every rank learns every
// rank's host through the store (one round at start-up) and talks over the host
// fabric to ranks on its own host, over the network fabric to the others. A single
// name means that fabric for every peer, as before. `local_size` gets the number of
// ranks on this host where the exchange learnt it.
std::unique_ptr<fabric::Fabric> choose_fabric(const Config& cfg, const bootstrap::Environment& env,
                                              bootstrap::Store& store, const fabric::FabricInit& init,
                                              int* local_size) {
  // ZRLMPI nodes never join the store; only the udp fabric speaks their packets.
  if (!cfg.zrlmpi_ranks.empty()) {
    if (cfg.fabric != "auto" && cfg.fabric != "udp")
      throw_error(Errc::invalid_argument, "INTERLACE_ZRLMPI_RANKS needs the udp fabric (INTERLACE_FABRIC=" +
                                              cfg.fabric + " cannot reach ZRLMPI nodes)");
    if (!fabric::registry().find("udp"))
      throw_error(Errc::unsupported, "INTERLACE_ZRLMPI_RANKS needs the udp fabric, which is not built in");
    return fabric::make_fabric("udp", init);
  }
  const fabric::FabricSetting s = fabric::parse_fabric_setting(cfg.fabric, fabric::registry());
  if (!s.tiers()) return fabric::make_fabric(s.single, init);
  if (env.size == 1) return s.host->make(init);
  // The route layer forwards frames for other ranks, which a fabric split by peer
  // cannot carry: a routed job keeps one fabric (the host one only on one host).
  const bool routed = !cfg.routes_dir.empty();
  if (routed && cfg.fabric != "auto")
    throw_error(Errc::invalid_argument, "INTERLACE_FABRIC='" + cfg.fabric +
                                            "': two tiers cannot be combined with INTERLACE_ROUTES; name one fabric");
  const std::vector<std::string> hosts = fabric::exchange_hosts(store, "fabric-choice/", env.rank, env.size,
                                                                env.host, cfg.connect_timeout_s);
  std::vector<uint8_t> local(hosts.size());
  int nlocal = 0;
  for (size_t r = 0; r < hosts.size(); ++r) nlocal += local[r] = hosts[r] == env.host;
  *local_size = nlocal;
  if (nlocal == env.size) return s.host->make(init);
  if (nlocal == 1 || routed) return s.net->make(init);
  std::unique_ptr<fabric::Fabric> host = s.host->make(init);
  return fabric::make_tier_fabric(std::move(host), s.net->make(init), std::move(local));
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

void Context::choose_wait_policy() {
  // A host-scope fabric means one host; others know only what the launcher told us.
  const fabric::FabricInfo* info = fabric::registry().find(fabric_->name());
  const int local = info && info->scope == fabric::FabricScope::host ? size_
                    : env_.local_size > 0                 ? env_.local_size
                                                          : 1;
  // A rank bound to its own core sees one CPU in its mask, though the job's
  // ranks have one each: the launcher passes the job's CPUs on this host.
  int cores = static_cast<int>(host_cpus_from_env().size());
  cpu_set_t set;
  if (cores <= 0 && sched_getaffinity(0, sizeof set, &set) == 0) cores = CPU_COUNT(&set);
  if (cores <= 0) cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const bool crowded = local > cores;
  const bool block = fabric_->prefers_blocking();
  spin_rounds_ = config_.spin_before_block >= 0 ? config_.spin_before_block : crowded || block ? 0 : 2000;
  yield_rounds_ = config_.yield_before_block >= 0 ? config_.yield_before_block : crowded && !block ? 1000 : 0;
  IL_LOG(debug, "wait policy: " << local << " local ranks on " << cores << " cores: spin "
                                << spin_rounds_ << ", yield " << yield_rounds_);
}

ContextOptions Context::options_from_environment() {
  ContextOptions o;
  o.env = bootstrap::Environment::detect();
  o.config = Config::from_env();
  return o;
}

Context::Context(ContextOptions opts)
    : rank_(opts.env.rank), size_(opts.env.size), env_(std::move(opts.env)),
      config_(std::move(opts.config)), store_(std::move(opts.store)) {
  if (size_ < 1 || rank_ < 0 || rank_ >= size_)
    throw_error(Errc::invalid_rank, "rank " + std::to_string(rank_) + " of size " +
                                        std::to_string(size_) + " is not a valid rank");
  log::Level lvl;
  if (log::parse_level(config_.log_level, &lvl)) log::set_level(lvl);
  log::set_rank(rank_);
  if (!config_.zrlmpi_ranks.empty()) {
    foreign_.assign(size_, 0);
    for (int r : config_.zrlmpi_ranks) {
      if (r >= size_)
        throw_error(Errc::invalid_argument, "INTERLACE_ZRLMPI_RANKS lists rank " + std::to_string(r) +
                                                ", outside the job of " + std::to_string(size_) + " ranks");
      if (r == rank_)
        throw_error(Errc::invalid_argument, "INTERLACE_ZRLMPI_RANKS lists rank " + std::to_string(r) +
                                                ", which is this interlace process");
      foreign_[r] = 1;
    }
  }
  if (!store_) store_ = bootstrap::open_store(env_.store_url, env_.secret, config_.connect_timeout_s);

  fabric::FabricInit init;
  init.rank = rank_;
  init.size = size_;
  init.job_id = env_.job_id;
  init.secret = env_.secret;
  init.store = store_.get();
  init.config = config_;
  // Tables first: a bad file fails before any connection is made.
  std::optional<fabric::RouteTable> routes;
  if (!config_.routes_dir.empty()) {
    routes = fabric::load_route_table(config_.routes_dir);
    if (routes->ranks() != size_)
      throw_error(Errc::invalid_argument, "INTERLACE_ROUTES: " + routes->source() + " has routes for " +
                                              std::to_string(routes->ranks()) + " ranks but the job has " +
                                              std::to_string(size_));
  }
  int local_size = 0;
  fabric_ = choose_fabric(config_, env_, *store_, init, &local_size);
  // The wait policy counts the ranks sharing this host's cores.
  if (local_size > 0) env_.local_size = local_size;
  if (routes && !fabric_->routes_itself()) {
    fabric_ = route::make_route_layer(std::move(fabric_), std::move(*routes), config_);
  }
  IL_LOG(debug, "context up: rank " << rank_ << "/" << size_ << " fabric " << fabric_->name()
                                     << " job " << env_.job_id);
  // Which fabric carries each peer's frames (visible with INTERLACE_LOG=info).
  if (size_ > 1) IL_LOG(info, "fabric " << fabric_->name() << " on host " << env_.host << ": "
                                       << fabric::describe_peers(*fabric_));

  choose_wait_policy();
  backlog_.resize(size_);
  lost_.assign(size_, 0);
  watched_.assign(size_, 0);
  if (config_.progress == ProgressMode::thread) start_progress_thread();
}

void Context::require_no_foreign(const std::vector<int>& worlds, const std::string& what) const {
  if (foreign_.empty()) return;
  for (int w : worlds)
    if (foreign(w))
      throw_error(Errc::unsupported, what + ": rank " + std::to_string(w) +
                                         " is a ZRLMPI node: only MPI_Send/MPI_Recv of 4-byte types reach it; "
                                         "expand collectives with `interlace transpile`");
}

void Context::start_progress_thread() {
  if (progress_thread_.joinable() || finalized_) return;
  lock_.enable();
  progress_thread_ = std::thread([this] { progress_thread_main(); });
}

Context::~Context() {
  try {
    finalize();
  } catch (const std::exception& e) {
    IL_LOG(warn, "finalize during destruction failed: " << e.what());
  }
}

// Registration takes the lock: with INTERLACE_PROGRESS=thread the progress thread
// already runs while models register.
void Context::set_handler(uint8_t kind, FrameHandler fn, void* self) {
  if (kind == fabric::kKindInvalid || kind >= fabric::kKindCount)
    throw_error(Errc::invalid_argument, "frame kind " + std::to_string(kind) + " out of range");
  std::lock_guard<OptionalLock> g(lock_);
  handlers_[kind] = Handler{fn, self};
  if (!orphans_.empty()) {
    deliver_orphans_ = true;
    wake_progress();
  }
}

void Context::add_peer_lost_listener(PeerLostHandler fn, void* self) {
  std::lock_guard<OptionalLock> g(lock_);
  lost_listeners_.push_back(Listener{fn, self});
}

void Context::add_progress_hook(ProgressHook fn, void* self) {
  std::lock_guard<OptionalLock> g(lock_);
  hooks_.push_back(Hook{fn, self});
}

Errc Context::wait_for(std::span<Completion* const> set, bool any, Deadline deadline) {
  // Captured by one reference so that the std::function wait_until takes stays within
  // its inline buffer: a capture of span + flag allocated on every wait.
  struct Ready {
    OptionalLock& lock;
    std::span<Completion* const> set;
    bool any;
    bool operator()() const {
      std::lock_guard<OptionalLock> g(lock);
      size_t finished = 0;
      for (Completion* c : set) {
        if (c && !c->done) c->poll();
        if (!c || c->done) {
          if (any) return true;
          ++finished;
        }
      }
      return finished == set.size();
    }
  } ready{lock_, set, any};
  return wait_until([&ready] { return ready(); }, deadline);
}

void Context::add_comm_free_listener(CommFreeHandler fn, void* self) {
  std::lock_guard<OptionalLock> g(lock_);
  comm_free_listeners_.push_back({fn, self});
}

void Context::notify_comm_freed(uint64_t comm_id) {
  std::lock_guard<OptionalLock> g(lock_);
  for (const CommFreeListener& l : comm_free_listeners_) l.fn(l.self, comm_id);
}

bool Context::replay_orphans() {
  deliver_orphans_ = false;
  bool moved = false;
  std::deque<Pending> keep;
  std::vector<int> lost_senders;
  while (!orphans_.empty()) {
    Pending p = std::move(orphans_.front());
    orphans_.pop_front();
    const Handler& hd = handlers_[p.h.kind];
    if (hd.fn) {
      const int src = static_cast<int>(p.h.src);
      if (src >= 0 && src < size_ && lost_[src] &&
          std::find(lost_senders.begin(), lost_senders.end(), src) == lost_senders.end())
        lost_senders.push_back(src);
      hd.fn(hd.self, p.h, p.payload.data());
      moved = true;
    } else {
      keep.push_back(std::move(p));
    }
  }
  orphans_ = std::move(keep);
  // The fabric reported these peers lost while their frames waited here, before the
  // model that takes them had its listener: peer_lost() hid the loss until now, and a
  // receive it let the model post meanwhile must fail if those frames did not match it.
  // Listeners already told drop nothing more (failing a peer's requests is idempotent).
  for (int peer : lost_senders)
    for (const Listener& l : lost_listeners_) l.fn(l.self, peer);
  return moved;
}

Errc Context::try_send_frame(int peer, fabric::FrameHeader& h, const void* payload, size_t len) {
  if (peer < 0 || peer >= size_) return Errc::invalid_rank;
  if (lost_[peer]) return Errc::lost_peer;
  if (!backlog_[peer].empty()) return Errc::would_block;  // keep per-peer order
  h.magic = fabric::kFrameMagic;
  h.version = fabric::kWireVersion;
  h.src = static_cast<uint32_t>(rank_);
  h.dst = static_cast<uint32_t>(peer);
  h.len = len;
  return fabric_->send(peer, h, payload, len);
}

Errc Context::send_frame(int peer, fabric::FrameHeader& h, const void* payload, size_t len) {
  if (finalized_) return Errc::finalized;
  if (len > fabric_->max_payload_to(peer)) return Errc::invalid_argument;
  Errc rc = try_send_frame(peer, h, payload, len);
  if (rc != Errc::would_block) return rc;
  // The fabric is full: keep a copy so callers (and frame handlers) never block.
  Pending p;
  p.h = h;
  p.h.magic = fabric::kFrameMagic;
  p.h.version = fabric::kWireVersion;
  p.h.src = static_cast<uint32_t>(rank_);
  p.h.dst = static_cast<uint32_t>(peer);
  p.h.len = len;
  p.payload.assign(static_cast<const std::byte*>(payload),
                   static_cast<const std::byte*>(payload) + len);
  backlog_[peer].push_back(std::move(p));
  ++backlog_frames_;
  backlog_bytes_ += len;
  wake_progress();  // a full ring drains without waking the progress thread: it polls
  return Errc::ok;
}

bool Context::flush_backlogs() {
  bool moved = false;
  for (int peer = 0; peer < size_ && backlog_frames_ > 0; ++peer) {
    auto& q = backlog_[peer];
    while (!q.empty()) {
      Pending& p = q.front();
      Errc rc = fabric_->send(peer, p.h, p.payload.data(), p.payload.size());
      if (rc == Errc::would_block) break;
      if (rc != Errc::ok) IL_LOG(debug, "dropping queued frame to rank " << peer << ": " << errc_name(rc));
      backlog_bytes_ -= p.payload.size();
      q.pop_front();
      --backlog_frames_;
      moved = true;
    }
  }
  return moved;
}

bool Context::progress() {
  if (in_progress_) return false;  // a handler's own call: the outer round continues
  in_progress_ = true;
  struct Reset { bool& f; ~Reset() { f = false; } } reset{in_progress_};
  bool moved = false;
  if (deliver_orphans_) moved |= replay_orphans();
  if (backlog_frames_ > 0) moved |= flush_backlogs();
  if (fabric_->progress(*this) > 0) moved = true;
  for (const Hook& hk : hooks_) moved |= hk.fn(hk.self);
  return moved;
}

void Context::on_frame(const fabric::FrameHeader& h, const std::byte* payload) {
  const uint8_t kind = h.kind < fabric::kKindCount ? h.kind : 0;
  const Handler& hd = handlers_[kind];
  if (!hd.fn) {
    if (kind == fabric::kKindInvalid) {
      IL_LOG(error, "dropping frame of invalid kind " << int(h.kind) << " from rank " << h.src);
      return;
    }
    // Its model starts later on this rank: keep the frame, in order, until then.
    if (orphans_.size() == 10000)
      IL_LOG(warn, "10000 frames are waiting for a model that this rank has not started (kind "
                       << int(kind) << ")");
    Pending p;
    p.h = h;
    p.payload.assign(payload, payload + h.len);
    orphans_.push_back(std::move(p));
    return;
  }
  hd.fn(hd.self, h, payload);
}

void Context::on_peer_lost(int peer, const std::string& why) {
  if (peer < 0 || peer >= size_ || lost_[peer]) return;
  lost_[peer] = 1;
  backlog_frames_ -= backlog_[peer].size();
  for (const Pending& p : backlog_[peer]) backlog_bytes_ -= p.payload.size();
  backlog_[peer].clear();
  // Info, not warn: a peer that finished and closed its links looks the same on tcp;
  // operations that needed the peer raise LostPeerError naming it.
  IL_LOG(info, "lost peer rank " << peer << ": " << why);
  // Frames of it that a model registered for wait for the next round: replay_orphans
  // tells the listeners after them, or a receive they match would fail first.
  if (!peer_lost(peer)) return;
  for (const Listener& l : lost_listeners_) l.fn(l.self, peer);
}

// The fabric reports a loss after every frame the peer sent before it (fabric.hpp);
// frames a model has just registered for still wait here until the next progress
// round replays them, so until then the peer is not lost to models: a receive posted
// in between must wait for them rather than fail with lost_peer.
bool Context::peer_lost(int peer) const noexcept {
  if (peer < 0 || peer >= size_ || !lost_[peer]) return false;
  if (!deliver_orphans_) return true;
  for (const Pending& p : orphans_)
    if (static_cast<int>(p.h.src) == peer && handlers_[p.h.kind].fn) return false;
  return true;
}

Errc Context::wait_until(const std::function<bool()>& done, Deadline deadline) {
  return wait_loop(done, deadline, false);
}

Errc Context::wait_until_memory(const std::function<bool()>& done, Deadline deadline) {
  return wait_loop(done, deadline, true);
}

void Context::publish_progress() {
  progress_gen_.fetch_add(1, std::memory_order_seq_cst);
  // Pairs with the waiter's increment of waiters_ before it tests progress_gen_.
  if (waiters_.load(std::memory_order_seq_cst) == 0) return;
  { std::lock_guard<std::mutex> g(waiters_m_); }
  waiters_cv_.notify_all();
}

Errc Context::wait_loop(const std::function<bool()>& done, Deadline deadline, bool memory) {
  int idle_rounds = 0;
  uint64_t next_peer_check = 0;
  const uint64_t check_ns = static_cast<uint64_t>(config_.peer_check_s * 1e9);
  const bool threaded = lock_.enabled();
  int threaded_sleep_us = 0;
  std::optional<blocking::Scope> blocked;
  for (;;) {
    bool moved;
    // Read before done(): a round that finishes after this changes it, so the block
    // below cannot sleep through it.
    const uint64_t gen = threaded ? progress_gen_.load(std::memory_order_seq_cst) : 0;
    {
      std::lock_guard<OptionalLock> g(lock_);
      if (done()) return Errc::ok;
      moved = progress();
      if (done()) return Errc::ok;
    }
    if (deadline.expired()) return Errc::timeout;
    if (moved) {
      // Another application thread may wait for what this round moved.
      if (threaded) publish_progress();
      idle_rounds = 0;
      threaded_sleep_us = 0;
      continue;
    }
    ++idle_rounds;
    if (idle_rounds < spin_rounds_) { cpu_relax(); continue; }
    // From here on the wait may be long: a task scheduler owning this thread lends
    // the core to other work (interlace/core/blocking.hpp).
    if (!blocked) blocked.emplace();
    // Crowded host: hand the core to a peer that has work before paying for a sleep.
    if (idle_rounds < spin_rounds_ + yield_rounds_) { sched_yield(); continue; }

    const uint64_t now = now_ns();
    if (now >= next_peer_check) {
      std::lock_guard<OptionalLock> g(lock_);
      fabric_->check_peers(*this);
      next_peer_check = now + check_ns;
      if (done()) return Errc::ok;
    }
    double t = config_.peer_check_s;
    if (deadline.at_ns) t = std::min(t, (deadline.at_ns > now ? deadline.at_ns - now : 0) * 1e-9);
    if (threaded && !memory) {
      // The progress thread owns the fabric's sleep (docs/progress.md): block until
      // one of its rounds moves something. The bound keeps work that moves only when
      // a waiter polls (a collective's mismatch checks) going.
      waiters_.fetch_add(1, std::memory_order_seq_cst);
      {
        std::unique_lock<std::mutex> lk(waiters_m_);
        waiters_cv_.wait_for(lk, std::chrono::duration<double>(std::min(t, 2e-3)), [&] {
          return progress_gen_.load(std::memory_order_seq_cst) != gen ||
                 stop_thread_.load(std::memory_order_acquire);
        });
      }
      waiters_.fetch_sub(1, std::memory_order_seq_cst);
    } else if (threaded) {
      // Stores by peers wake only a sleeper in the fabric, which the progress thread
      // owns: yield for a while (a reply is usually tens of microseconds away), then
      // sleep in growing steps up to 1 ms rather than spin a core another rank needs.
      if (idle_rounds < spin_rounds_ + yield_rounds_ + 2000) {
        sched_yield();
      } else {
        threaded_sleep_us = std::min(std::max(threaded_sleep_us * 2, 1), 1000);
        std::this_thread::sleep_for(std::chrono::microseconds(threaded_sleep_us));
      }
    } else if (backlog_frames_ > 0 || busy_ > 0) {
      // A full ring drains without waking us: poll gently.
      sched_yield();
    } else {
      fabric_->wait_unless(t, done, memory);
    }
  }
}

void Context::progress_thread_main() {
  // Sleeps in the fabric when it allows that beside other threads (arm_sleep ..
  // disarm_sleep, fabric.hpp): a frame, a wake() or the peer-check period ends the
  // sleep. Work that moves without frames (a backlog, chunks from hooks) is polled;
  // fabrics that cannot sleep beside senders keep the growing back-off.
  const bool sleeps = fabric_->sleeps_concurrently();
  int idle_us = 0;
  uint64_t next_peer_check = 0, last_moved = 0;
  const uint64_t check_ns = static_cast<uint64_t>(config_.peer_check_s * 1e9);
  constexpr uint64_t kLingerNs = 50'000;
  while (!stop_thread_.load(std::memory_order_acquire)) {
    bool moved, armed = false;
    double sleep_s = 0;
    {
      std::lock_guard<OptionalLock> g(lock_);
      moved = progress();
      const uint64_t now = now_ns();
      if (now >= next_peer_check) {
        fabric_->check_peers(*this);
        next_peer_check = now + check_ns;
      }
      if (moved) last_moved = now;
      // Lingers a little after traffic: the next frame of a running exchange is usually
      // microseconds away, and a futex wake-up onto a busy core costs more.
      if (!moved && sleeps && now - last_moved > kLingerNs && backlog_frames_ == 0 && busy_ == 0 &&
          !deliver_orphans_ && !stop_thread_.load(std::memory_order_acquire)) {
        // Before arming: a thread that posts work after this lock is released sees it
        // and wakes the fabric (wake_progress).
        progress_asleep_.store(true, std::memory_order_relaxed);
        armed = fabric_->arm_sleep();
        if (!armed) progress_asleep_.store(false, std::memory_order_relaxed);
        sleep_s = static_cast<double>(next_peer_check - now) * 1e-9;
      }
    }
    if (moved) {
      idle_us = 0;
      publish_progress();
      continue;
    }
    if (armed) {
      fabric_->sleep_armed(sleep_s);
      std::lock_guard<OptionalLock> g(lock_);
      fabric_->disarm_sleep();
      progress_asleep_.store(false, std::memory_order_relaxed);
      idle_us = 0;
      continue;
    }
    if (sleeps) {
      // Lingering, or outbound work waits for room (a backlog, the chunks of a large
      // message) that a peer frees without waking us, usually within microseconds:
      // yield for a while, then nap briefly.
      if (++idle_us < 1000) sched_yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(50));
      continue;
    }
    idle_us = idle_us == 0 ? 1 : std::min(idle_us * 2, 1000);
    std::this_thread::sleep_for(std::chrono::microseconds(idle_us));
  }
}

void Context::finalize() {
  if (finalized_) return;
  // Queued frames must reach their peers before the fabric closes.
  wait_until([this] { return backlog_frames_ == 0; }, Deadline::after(config_.connect_timeout_s));
  if (progress_thread_.joinable()) {
    stop_thread_.store(true, std::memory_order_release);
    fabric_->wake();  // out of its sleep in the fabric
    progress_thread_.join();
  }
  finalized_ = true;
  fabric_.reset();
}

}  // namespace interlace::engine
