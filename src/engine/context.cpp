#include "interlace/engine/context.hpp"
#include "interlace/fabric/registry.hpp"
#include "interlace/fabric/route_table.hpp"
#include "interlace/route/route_layer.hpp"

#include <sched.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "interlace/core/blocking.hpp"
#include "interlace/core/log.hpp"

namespace interlace::engine {

namespace {

// Picks the fabric. "auto" means the best host-scope fabric when every rank reports
// the same host, else the best network one; finding out costs one store round (an
// add and a barrier) at start-up.
std::string choose_fabric(const Config& cfg, const bootstrap::Environment& env,
                          bootstrap::Store& store) {
  // ZRLMPI nodes never join the store; only the udp fabric speaks their packets.
  if (!cfg.zrlmpi_ranks.empty()) {
    if (cfg.fabric != "auto" && cfg.fabric != "udp")
      throw_error(Errc::invalid_argument, "INTERLACE_ZRLMPI_RANKS needs the udp fabric (INTERLACE_FABRIC=" +
                                              cfg.fabric + " cannot reach ZRLMPI nodes)");
    if (!fabric::registry().find("udp"))
      throw_error(Errc::unsupported, "INTERLACE_ZRLMPI_RANKS needs the udp fabric, which is not built in");
    return "udp";
  }
  const fabric::Registry& reg = fabric::registry();
  if (cfg.fabric != "auto") {
    if (!reg.find(cfg.fabric))
      throw_error(Errc::invalid_argument, "INTERLACE_FABRIC='" + cfg.fabric +
                                              "' is not auto or a registered fabric (" + reg.names() + ")");
    return cfg.fabric;
  }
  const fabric::FabricInfo* host = reg.best(fabric::FabricScope::host);
  const fabric::FabricInfo* net = reg.best(fabric::FabricScope::network);
  if (!host && !net) throw_error(Errc::unsupported, "no fabric is registered");
  if (!net || (host && env.size == 1)) return host->name;
  if (!host) return net->name;
  const std::string prefix = "fabric-choice/";
  if (env.rank == 0) store.set(prefix + "host0", env.host);
  std::string host0 = store.get(prefix + "host0", cfg.connect_timeout_s);
  store.add(prefix + "differ", host0 == env.host ? 0 : 1);
  bootstrap::store_barrier(store, prefix + "barrier", env.size, cfg.connect_timeout_s);
  return store.add(prefix + "differ", 0) == 0 ? host->name : net->name;
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
  cpu_set_t set;
  int cores = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) cores = CPU_COUNT(&set);
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
  const std::string which = choose_fabric(config_, env_, *store_);
  fabric_ = fabric::make_fabric(which, init);
  if (routes && !fabric_->routes_itself()) {
    fabric_ = route::make_route_layer(std::move(fabric_), std::move(*routes), config_);
  }
  IL_LOG(debug, "context up: rank " << rank_ << "/" << size_ << " fabric " << fabric_->name()
                                     << " job " << env_.job_id);

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
  if (!orphans_.empty()) deliver_orphans_ = true;
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
  while (!orphans_.empty()) {
    Pending p = std::move(orphans_.front());
    orphans_.pop_front();
    const Handler& hd = handlers_[p.h.kind];
    if (hd.fn) {
      hd.fn(hd.self, p.h, p.payload.data());
      moved = true;
    } else {
      keep.push_back(std::move(p));
    }
  }
  orphans_ = std::move(keep);
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
  if (len > fabric_->max_payload()) return Errc::invalid_argument;
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
  for (const Listener& l : lost_listeners_) l.fn(l.self, peer);
}

bool Context::peer_lost(int peer) const noexcept {
  return peer >= 0 && peer < size_ && lost_[peer];
}

Errc Context::wait_until(const std::function<bool()>& done, Deadline deadline) {
  return wait_loop(done, deadline, false);
}

Errc Context::wait_until_memory(const std::function<bool()>& done, Deadline deadline) {
  return wait_loop(done, deadline, true);
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
    {
      std::lock_guard<OptionalLock> g(lock_);
      if (done()) return Errc::ok;
      moved = progress();
      if (done()) return Errc::ok;
    }
    if (deadline.expired()) return Errc::timeout;
    if (moved) { idle_rounds = 0; threaded_sleep_us = 0; continue; }
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
    if (threaded) {
      // The progress thread owns the blocking wait. Yield for a while (a reply is
      // usually tens of microseconds away), then sleep in growing steps up to 1 ms
      // (its own idle step) rather than spin a core another rank may need.
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
  // Sleeps grow while idle so an idle rank costs little CPU; any traffic resets them.
  int idle_us = 0;
  uint64_t next_peer_check = 0;
  const uint64_t check_ns = static_cast<uint64_t>(config_.peer_check_s * 1e9);
  while (!stop_thread_.load(std::memory_order_acquire)) {
    bool moved;
    {
      std::lock_guard<OptionalLock> g(lock_);
      moved = progress();
      const uint64_t now = now_ns();
      if (now >= next_peer_check) {
        fabric_->check_peers(*this);
        next_peer_check = now + check_ns;
      }
    }
    if (moved) { idle_us = 0; continue; }
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
    progress_thread_.join();
  }
  finalized_ = true;
  fabric_.reset();
}

}  // namespace interlace::engine
