// Attaching the PGAS model to a rank: the symmetric heap (exposed through the fabric
// so host peers can map it), the program's static data range, and the lazily learned
// facts about each peer (pid, static base, heap size) from the bootstrap store.
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "interlace/core/job_clock.hpp"
#include "interlace/core/log.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/pgas/result_transfer.hpp"
#include "pgas/pgas_state.hpp"

namespace interlace::pgas {

namespace {
constexpr size_t kDefaultHeap = size_t{256} << 20;

// The executable's writable PT_LOAD segments (data, bss): globals and statics of
// the program, at the same offsets in every PE that runs the same binary.
int find_static(dl_phdr_info* info, size_t, void* out) {
  auto* range = static_cast<std::pair<uintptr_t, uintptr_t>*>(out);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
    if (range->first == 0 || lo < range->first) range->first = lo;
    range->second = std::max(range->second, hi);
  }
  return 1;  // the first object is the main program
}

std::string info_key(int rank) { return "pgas/" + std::to_string(rank); }
}  // namespace

size_t parse_heap_size(const char* text) {
  const std::string v = text ? text : "";
  char* end = nullptr;
  errno = 0;
  const double n = std::strtod(v.c_str(), &end);
  double mult = 1;
  std::string suffix = end ? std::string(end) : "";
  if (!suffix.empty()) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    mult = c == 'K' ? 1024.0 : c == 'M' ? 1048576.0 : c == 'G' ? 1073741824.0 : c == 'T' ? 1099511627776.0 : 0;
    const std::string rest = suffix.substr(1);
    if (!(rest.empty() || rest == "B" || rest == "b" || rest == "iB")) mult = 0;
  }
  if (v.empty() || end == v.c_str() || errno || n <= 0 || mult == 0 || n * mult > 1e15)
    throw_error(Errc::invalid_argument,
                "SHMEM_SYMMETRIC_SIZE='" + v + "' is not a size (a positive number with an optional K, M or G suffix)");
  return static_cast<size_t>(n * mult);
}

PgasState::~PgasState() {
  if (current() == api) set_current(nullptr);
  if (heap_private && heap) munmap(heap, heap_bytes);
}

Pgas* Pgas::of(engine::Context& ctx) noexcept {
  return static_cast<Pgas*>(ctx.model_state(engine::Context::Model::pgas).get());
}

Pgas& Pgas::attach(Runtime& rt, size_t heap_bytes) {
  engine::Context& ctx = rt.context();
  if (Pgas* p = of(ctx)) return *p;
  Pgas* p = nullptr;
  {
    std::lock_guard<engine::OptionalLock> g(ctx.lock());
    p = &attach_locked(ctx, heap_bytes);
  }
  // Over a fabric without shared memory every operation is a message its target
  // serves: by default a progress thread serves them while the target computes.
  // (Outside the lock: starting the thread turns the lock on.) Not in virtual time (the
  // sim fabric): the thread's polls would land at real-time moments and make virtual
  // times differ from run to run; there a PE serves messages whenever it waits.
  if (p->s_->heap_private && p->s_->size > 1 && ctx.config().progress == ProgressMode::auto_ &&
      !clock::is_virtual())
    ctx.start_progress_thread();
  return *p;
}

Pgas& Pgas::attach_locked(engine::Context& ctx, size_t heap_bytes) {
  if (heap_bytes == 0) {
    const char* env = std::getenv("SHMEM_SYMMETRIC_SIZE");
    heap_bytes = env ? parse_heap_size(env) : kDefaultHeap;
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  heap_bytes = (heap_bytes + page - 1) / page * page;

  auto s = std::make_shared<PgasState>();
  s->ctx = &ctx;
  s->rank = ctx.rank();
  s->size = ctx.size();
  s->heap_bytes = heap_bytes;
  s->heap = static_cast<std::byte*>(ctx.fabric().expose_region(0, heap_bytes));
  if (!s->heap) {
    void* m = mmap(nullptr, heap_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
      throw_system_error("pgas: cannot reserve a symmetric heap of SHMEM_SYMMETRIC_SIZE=" +
                         std::to_string(heap_bytes) + " bytes");
    s->heap = static_cast<std::byte*>(m);
    s->heap_private = true;
  }
  s->alloc.reset(heap_bytes);
  s->dirty = std::make_unique<std::atomic<uint8_t>[]>(s->size);
  for (int i = 0; i < s->size; ++i) s->dirty[i].store(0, std::memory_order_relaxed);
  s->peer_heap.assign(s->size, nullptr);
  s->peer_heap_state.assign(s->size, 0);
  s->peer_heap[s->rank] = s->heap;
  s->peer_heap_state[s->rank] = 1;
  s->peers.assign(s->size, {});
  s->peer_cma.assign(s->size, 0);
  std::pair<uintptr_t, uintptr_t> range{0, 0};
  dl_iterate_phdr(find_static, &range);
  s->static_lo = range.first;
  s->static_hi = range.second;

  // Wire limits: a frame carries the arguments and the payload.
  const size_t room = ctx.fabric().max_payload() - kMaxArgs * sizeof(AmArg);
  s->max_medium = std::min<size_t>(room, size_t{64} << 10);
  s->max_long = std::min<size_t>(room, size_t{1} << 20);
  if (s->max_medium < kMinMaxMedium)
    throw_error(Errc::internal, "pgas: fabric " + std::string(ctx.fabric().name()) +
                                    " carries only " + std::to_string(room) + " bytes per frame");

  auto d = std::make_shared<DomainState>();
  d->id = 0;
  d->per_pe.assign(s->size, 0);
  s->default_domain.s_ = d;
  s->domains[0] = d.get();
  register_internal_handlers(*s);

  std::ostringstream info;
  info << getpid() << ' ' << s->static_lo << ' ' << heap_bytes;
  ctx.store().set(info_key(s->rank), info.str());

  auto api = std::make_shared<Pgas>(s);
  s->api = api.get();
  PgasState* raw = s.get();
  ctx.set_handler(kKindRequest, on_pgas_frame, raw);
  ctx.set_handler(kKindReply, on_pgas_frame, raw);
  ctx.set_handler(kKindExit, on_pgas_frame, raw);
  ctx.add_progress_hook(pgas_progress_hook, raw);
  ctx.add_peer_lost_listener(on_pgas_peer_lost, raw);
  ctx.model_state(engine::Context::Model::pgas) = api;
  set_current(api.get());  // the C APIs (shmem.h, pgas.h) find the process's PGAS here
  IL_LOG(debug, "pgas: rank " << s->rank << " heap " << heap_bytes << " bytes at " << s->heap
                              << (s->heap_private ? " (private)" : " (shared)") << ", static data 0x"
                              << std::hex << s->static_lo << "-0x" << s->static_hi);
  return *api;
}

PgasState& state_of(Pgas& p) { return p.state(); }

void check_pe(const PgasState& s, int pe, const char* what) {
  if (pe < 0 || pe >= s.size)
    throw_error(Errc::invalid_rank, std::string(what) + ": PE " + std::to_string(pe) +
                                        " is out of range (the job has " + std::to_string(s.size) +
                                        " PEs: 0-" + std::to_string(s.size - 1) + ")");
  if (s.ctx->peer_lost(pe))
    throw_error(Errc::lost_peer, std::string(what) + ": PE " + std::to_string(pe) + " is lost");
}

const PgasState::PeerInfo& peer_info(PgasState& s, int pe) {
  PgasState::PeerInfo& p = s.peers[pe];
  if (p.known) return p;
  const std::string v = s.ctx->store().get(info_key(pe), s.ctx->config().connect_timeout_s);
  std::istringstream in(v);
  in >> p.pid >> p.static_lo >> p.heap;
  if (p.heap != s.heap_bytes)
    throw_error(Errc::invalid_argument,
                "pgas: PE " + std::to_string(pe) + " has a symmetric heap of " + std::to_string(p.heap) +
                    " bytes and PE " + std::to_string(s.rank) + " one of " +
                    std::to_string(s.heap_bytes) + ": SHMEM_SYMMETRIC_SIZE must be the same on every PE");
  p.known = true;
  return p;
}

std::byte* mapped_heap(PgasState& s, int pe) {
  int8_t& st = s.peer_heap_state[pe];
  if (st > 0) [[likely]] return s.peer_heap[pe];
  if (st < 0) return nullptr;
  peer_info(s, pe);  // the same heap size, or a clear error
  s.peer_heap[pe] = static_cast<std::byte*>(s.ctx->fabric().map_region(pe, 0, s.heap_bytes));
  st = s.peer_heap[pe] ? 1 : -1;
  return s.peer_heap[pe];
}

Sym translate(const PgasState& s, const void* addr, size_t len, const char* what) {
  const auto a = reinterpret_cast<uintptr_t>(addr);
  const auto h = reinterpret_cast<uintptr_t>(s.heap);
  if (a >= h && a - h <= s.heap_bytes && len <= s.heap_bytes - (a - h)) return {kRegionHeap, a - h};
  if (a >= s.static_lo && a < s.static_hi && len <= s.static_hi - a)
    return {kRegionStatic, a - s.static_lo};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", addr);
  throw_error(Errc::invalid_argument,
              std::string(what) + ": address " + buf + " (" + std::to_string(len) +
                  " bytes) is not symmetric: it is neither in the symmetric heap nor in the "
                  "program's global or static data");
}

std::byte* local_address(PgasState& s, uint8_t region, uint64_t off, size_t len) {
  if (region == kRegionHeap)
    return off <= s.heap_bytes && len <= s.heap_bytes - off ? s.heap + off : nullptr;
  if (region == kRegionStatic) {
    const uintptr_t n = s.static_hi - s.static_lo;
    return off <= n && len <= n - off ? reinterpret_cast<std::byte*>(s.static_lo + off) : nullptr;
  }
  return nullptr;
}

int Pgas::my_pe() const noexcept { return s_->rank; }
int Pgas::n_pes() const noexcept { return s_->size; }
engine::Context& Pgas::context() const noexcept { return *s_->ctx; }
void* Pgas::heap_base() const noexcept { return s_->heap; }
size_t Pgas::heap_size() const noexcept { return s_->heap_bytes; }
size_t Pgas::heap_used() const noexcept { return s_->alloc.used(); }
size_t Pgas::max_medium() const noexcept { return s_->max_medium; }
size_t Pgas::max_long() const noexcept { return s_->max_long; }

void* Pgas::malloc(size_t bytes, size_t alignment) {
  if (bytes == 0) return nullptr;
  if (alignment == 0 || (alignment & (alignment - 1)))
    throw_error(Errc::invalid_argument,
                "pgas: alignment " + std::to_string(alignment) + " is not a power of two");
  auto off = s_->alloc.allocate(bytes, alignment);
  if (!off)
    throw_error(Errc::invalid_count,
                "pgas: cannot allocate " + std::to_string(bytes) + " bytes: the symmetric heap " +
                    "(SHMEM_SYMMETRIC_SIZE=" + std::to_string(s_->heap_bytes) + " bytes) has " +
                    std::to_string(s_->alloc.used()) + " bytes in use and no free range that large "
                    "(largest " + std::to_string(s_->alloc.largest_free()) + "); raise SHMEM_SYMMETRIC_SIZE");
  return s_->heap + *off;
}

void Pgas::free(void* p) {
  if (!p) return;
  const auto a = reinterpret_cast<uintptr_t>(p), h = reinterpret_cast<uintptr_t>(s_->heap);
  if (a < h || a >= h + s_->heap_bytes || !s_->alloc.release(a - h)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", p);
    throw_error(Errc::invalid_argument,
                std::string("pgas: free of ") + buf + ", which is not a block of the symmetric heap");
  }
}

void* Pgas::realloc(void* p, size_t bytes) {
  if (!p) return malloc(bytes);
  if (bytes == 0) {
    free(p);
    return nullptr;
  }
  const size_t off = static_cast<size_t>(static_cast<std::byte*>(p) - s_->heap);
  const size_t have = reinterpret_cast<uintptr_t>(p) >= reinterpret_cast<uintptr_t>(s_->heap)
                          ? s_->alloc.block_size(off) : 0;
  if (have == 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", p);
    throw_error(Errc::invalid_argument,
                std::string("pgas: realloc of ") + buf + ", which is not a block of the symmetric heap");
  }
  if (s_->alloc.resize_in_place(off, bytes)) return p;
  void* q = malloc(bytes);
  std::memcpy(q, p, std::min(have, bytes));
  free(p);
  return q;
}

bool Pgas::is_symmetric(const void* addr, size_t len) const noexcept {
  try {
    translate(*s_, addr, len, "");
    return true;
  } catch (...) {
    return false;
  }
}

void* Pgas::ptr(const void* addr, int pe) const noexcept {
  try {
    if (pe < 0 || pe >= s_->size) return nullptr;
    const Sym sym = translate(*s_, addr, 1, "");
    if (sym.region == kRegionStatic) return pe == s_->rank ? const_cast<void*>(addr) : nullptr;
    std::byte* base = mapped_heap(*s_, pe);
    return base ? base + sym.off : nullptr;
  } catch (...) {
    return nullptr;
  }
}

bool Pgas::pe_accessible(int pe) const noexcept {
  return pe >= 0 && pe < s_->size && !s_->ctx->peer_lost(pe);
}

bool Pgas::addr_accessible(const void* addr, int pe) const noexcept {
  return pe_accessible(pe) && is_symmetric(addr);
}

}  // namespace interlace::pgas
