// Attaching a rank to its job's shared state (the segment named by the job id), the
// default topologies, and the job clock hooks of the sim fabric.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "interlace/core/error.hpp"
#include "interlace/core/job_clock.hpp"
#include "sim_fabric.hpp"

namespace interlace::fabric::sim {

namespace {

size_t align64(size_t x) { return (x + 63) & ~size_t{63}; }

constexpr uint32_t kDescPerPair = 256;
constexpr uint64_t kRingBytes = 256 * 1024;

std::string segment_name(const std::string& job) {
  std::string s = "/interlace-sim-";
  for (char c : job) s += (isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return s.substr(0, 200);
}

// A ring of n (fshmem's default): shortest direction, ties clockwise.
RouteTable ring_table(int n) {
  std::string t = "interlace-routes 1\nranks " + std::to_string(n) + "\nvcs 1\nscheme ring\n";
  for (int i = 0; i < n; ++i) t += "link " + std::to_string(i) + " 0 " + std::to_string((i + 1) % n) + " 1\n";
  for (int c = 0; c < n; ++c)
    for (int d = 0; d < n; ++d) {
      if (c == d) continue;
      const int fwd = (d - c + n) % n;
      const int nx = fwd <= n - fwd ? (c + 1) % n : (c + n - 1) % n;
      t += "next " + std::to_string(c) + " " + std::to_string(d) + " " + std::to_string(nx) + "\n";
      t += "vc " + std::to_string(c) + " " + std::to_string(d) + " 0\n";
    }
  return parse_route_table(t, "ring(" + std::to_string(n) + ")");
}

std::atomic<int> g_instances{0};
std::atomic<void*> g_process_clock{nullptr};

double clock_now(void* ctx) { return static_cast<SimFabric*>(ctx)->virtual_seconds(); }
void clock_advance(void* ctx, double s) { static_cast<SimFabric*>(ctx)->charge(s); }

}  // namespace

Layout::Layout(int n, uint32_t nd, uint64_t rb) : ndesc(nd), heap_cap(0), ring_bytes(rb) {
  const size_t nn = static_cast<size_t>(n) * n;
  heap_cap = static_cast<uint32_t>(nn * nd + 16);
  ranks = align64(sizeof(Header));
  links = align64(ranks + sizeof(RankSlot) * n);
  heap = align64(links + sizeof(uint64_t) * (nn + n));  // n*n links, then n switch downlinks
  pairs = align64(heap + sizeof(Event) * heap_cap);
  pair_bytes = align64(sizeof(Pair) + sizeof(Desc) * nd) + rb;
  total = pairs + pair_bytes * nn;
}

Pair& SimFabric::pair(int s, int d) const {
  return *reinterpret_cast<Pair*>(static_cast<char*>(base_) + layout_.pairs +
                                  layout_.pair_bytes * (static_cast<size_t>(s) * n_ + d));
}
Desc* SimFabric::descs(int s, int d) const { return reinterpret_cast<Desc*>(&pair(s, d) + 1); }
std::byte* SimFabric::ring(int s, int d) const {
  return reinterpret_cast<std::byte*>(&pair(s, d)) + align64(sizeof(Pair) + sizeof(Desc) * layout_.ndesc);
}

SimFabric::SimFabric(const FabricInit& init)
    : m_(model_from_env()), me_(init.rank), n_(init.size), pid_(getpid()) {
  connect_timeout_s_ = init.config.connect_timeout_s;
  if (!init.config.routes_dir.empty()) {
    routes_ = load_route_table(init.config.routes_dir);
    if (routes_.ranks() != n_)
      throw_error(Errc::invalid_argument, "sim: routes " + routes_.source() + " are for " +
                                              std::to_string(routes_.ranks()) + " ranks, the job has " +
                                              std::to_string(n_));
  } else {
    routes_ = (m_.preset == "fshmem" && n_ > 2) ? ring_table(n_) : RouteTable::fully_connected(n_);
  }
  layout_ = Layout(n_, kDescPerPair, kRingBytes);
  max_payload_ = kRingBytes / 4;
  seg_name_ = segment_name(init.job_id);
  seg_bytes_ = layout_.total;
  int fd = -1;
  if (me_ == 0) {
    fd = shm_open(seg_name_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 && errno == EEXIST) {  // a leftover of a crashed job with this id
      shm_unlink(seg_name_.c_str());
      fd = shm_open(seg_name_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    }
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(seg_bytes_)) != 0) {
      if (fd >= 0) close(fd);
      throw_system_error("sim: creating shared segment " + seg_name_);
    }
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(connect_timeout_s_);
    for (;;) {
      fd = shm_open(seg_name_.c_str(), O_RDWR, 0600);
      if (fd >= 0) {
        struct stat st {};
        if (fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= seg_bytes_) break;
        close(fd);
        fd = -1;
      }
      if (std::chrono::steady_clock::now() > deadline)
        throw_error(Errc::timeout, "sim: rank 0 did not create " + seg_name_ + " within " +
                                       std::to_string(connect_timeout_s_) + " s");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  base_ = mmap(nullptr, seg_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base_ == MAP_FAILED) throw_system_error("sim: mmap of " + seg_name_);
  hdr_ = static_cast<Header*>(base_);
  ranks_ = reinterpret_cast<RankSlot*>(static_cast<char*>(base_) + layout_.ranks);
  link_free_ = reinterpret_cast<uint64_t*>(static_cast<char*>(base_) + layout_.links);
  heap_ = reinterpret_cast<Event*>(static_cast<char*>(base_) + layout_.heap);
  if (me_ == 0) {
    hdr_->magic = kSimMagic;
    hdr_->n = static_cast<uint32_t>(n_);
    hdr_->ndesc = layout_.ndesc;
    hdr_->ring_bytes = layout_.ring_bytes;
    hdr_->heap_cap = layout_.heap_cap;
    hdr_->holder = -1;
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&hdr_->mu, &a);
    pthread_mutexattr_destroy(&a);
    hdr_->init_done.store(1, std::memory_order_release);
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(connect_timeout_s_);
    while (hdr_->init_done.load(std::memory_order_acquire) == 0) {
      if (std::chrono::steady_clock::now() > deadline)
        throw_error(Errc::timeout, "sim: " + seg_name_ + " was not initialised in time");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (hdr_->n != static_cast<uint32_t>(n_))
      throw_error(Errc::invalid_argument, "sim: job " + init.job_id + " has " + std::to_string(hdr_->n) +
                                              " ranks, this rank was started with " + std::to_string(n_));
  }
  lost_reported_.assign(n_, false);
  // Measured compute counts from here: work before the first fabric call is the rank's too.
  cpu_tid_ = static_cast<int>(gettid());
  cpu_mark_ = thread_cpu_ns();
  lock();
  RankSlot& me = slot(me_);
  me.pid = pid_;
  me.tid = static_cast<int32_t>(gettid());
  me.state = kReady;
  hdr_->attached++;
  if (hdr_->attached == static_cast<uint32_t>(n_)) {
    hdr_->started = 1;
    shm_unlink(seg_name_.c_str());  // everyone has it mapped: nothing to leave behind
    if (hdr_->holder < 0) dispatch();
  }
  unlock();
  // A rank that is a process reads its virtual time from any thread; ranks that are
  // threads of one process each install theirs on their own thread only.
  const bool first = g_instances.fetch_add(1) == 0;
  if (first) {
    g_process_clock.store(this);
    clock::set_source(clock_now, this, true, clock_advance);
  } else {
    if (void* owner = g_process_clock.exchange(nullptr)) clock::clear_source(owner);
    clock::set_source(clock_now, this, false, clock_advance);
  }
}

SimFabric::~SimFabric() {
  clock::clear_source(this);
  void* self = this;
  g_process_clock.compare_exchange_strong(self, nullptr);
  g_instances.fetch_sub(1);
  lock();
  slot(me_).state = kDone;
  if (hdr_->holder == me_) {
    hdr_->holder = -1;
    dispatch();
  }
  unlock();
  munmap(base_, seg_bytes_);
}

}  // namespace interlace::fabric::sim
