// Contract: the PGAS model (FSHMEM, docs/pgas.md). Every rank (PE) owns a symmetric
// heap of the same size; symmetric addresses are translated by offset from each PE's
// base (the heap, or the program's static data for globals), so ASLR and PIE are safe.
//  - Where the fabric maps a peer's heap (shm: one shared segment per PE that the PEs
//    of the host map), put/get are a memcpy and atomics a CPU atomic on the peer's
//    memory; the target takes no part. Static data of a peer on the host is reached by
//    cross-memory attach (process_vm_writev/readv) when the system allows it.
//  - Everywhere else the operations are active messages (am.hpp) served from the
//    target's progress (inline, or its progress thread): put is a long request, get a
//    short request answered by a long reply, an atomic a short request answered by a
//    short reply carrying the old value.
//  - Completion: blocking calls return complete; *_nbi calls are complete after
//    quiet(domain). fence(domain) orders puts to each PE. A Domain is an OpenSHMEM
//    context: its own set of outstanding operations.
//  - Waiting (wait_until, quiet, ...) progresses the engine and blocks the way every
//    engine wait does; a direct writer wakes a target that sleeps (Fabric::notify).
//  - Errors are interlace::Error naming the bad value: PE out of range
//    (invalid_rank), address not symmetric / misaligned atomic (invalid_argument),
//    heap exhausted (invalid_count, naming SHMEM_SYMMETRIC_SIZE), a lost PE
//    (lost_peer, within INTERLACE_TIMEOUT or the peer-check period), a blocking call
//    from an active-message handler (invalid_argument).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace interlace {
class Runtime;
namespace engine { class Context; }
}  // namespace interlace

namespace interlace::pgas {

// Atomic operations. The f* forms return the old value.
enum class AmoOp : uint8_t {
  fetch, set, swap, cswap, fetch_add, add, fetch_and, and_, fetch_or, or_, fetch_xor, xor_,
};
// Operand types of atomics: the width and whether arithmetic is integer or floating.
enum class AmoType : uint8_t { i32, i64, u32, u64, f32, f64 };
inline constexpr size_t amo_size(AmoType t) {
  return (t == AmoType::i32 || t == AmoType::u32 || t == AmoType::f32) ? 4 : 8;
}

// Signal update of put_signal (values of SHMEM_SIGNAL_SET / SHMEM_SIGNAL_ADD).
enum class SignalOp : int { set = 0, add = 1 };

// Comparison of wait_until/test (values of SHMEM_CMP_*).
enum class Cmp : int { eq = 0, ne = 1, gt = 2, ge = 3, lt = 4, le = 5 };

class Pgas;
struct DomainState;
struct PgasState;
class Domain;
DomainState& dom(PgasState& s, Domain& d);

// A completion domain (an OpenSHMEM context). Cheap to create; destroy after quiet.
class Domain {
 public:
  Domain() = default;
  bool valid() const noexcept { return static_cast<bool>(s_); }
 private:
  friend class Pgas;
  friend DomainState& dom(PgasState&, Domain&);
  std::shared_ptr<DomainState> s_;
};

class Pgas {
 public:
  // Attaches the model to `rt` (collective over the world: every PE must call it with
  // the same heap size). Later calls return the same object. heap_bytes 0 = from
  // SHMEM_SYMMETRIC_SIZE (K/M/G suffixes), default 256 MiB.
  static Pgas& attach(Runtime& rt, size_t heap_bytes = 0);
  // The object attached to the context, or nullptr.
  static Pgas* of(engine::Context& ctx) noexcept;

  int my_pe() const noexcept;
  int n_pes() const noexcept;
  engine::Context& context() const noexcept;

  // Symmetric heap. The allocator is deterministic, so PEs that call it in the same
  // order with the same sizes get the same offsets (OpenSHMEM's collective malloc;
  // the caller adds the barrier). malloc(0) is nullptr. Throws invalid_count naming
  // SHMEM_SYMMETRIC_SIZE when the heap is exhausted.
  void* malloc(size_t bytes, size_t alignment = 16);
  void* realloc(void* p, size_t bytes);
  void free(void* p);  // nullptr is a no-op; a non-heap pointer is invalid_argument
  void* heap_base() const noexcept;
  size_t heap_size() const noexcept;
  size_t heap_used() const noexcept;

  // Whether `addr` (with `len` bytes) is symmetric: in the heap or the static data.
  bool is_symmetric(const void* addr, size_t len = 1) const noexcept;
  // A load/store pointer to `addr` on `pe`, or nullptr where none exists.
  void* ptr(const void* addr, int pe) const noexcept;
  bool pe_accessible(int pe) const noexcept;
  bool addr_accessible(const void* addr, int pe) const noexcept;

  // Domains. default_domain() is SHMEM_CTX_DEFAULT.
  Domain& default_domain() noexcept;
  Domain create_domain();
  void destroy_domain(Domain& d);  // quiets it first

  // RMA. `dest`/`src` on the remote side must be symmetric. nbi: may return before
  // the data moved (complete after quiet); otherwise complete on return (put: the
  // source may be reused and the data is visible at the target after quiet/fence
  // ordering rules of OpenSHMEM; get: the data is in `dest`).
  void put(Domain& d, void* dest, const void* src, size_t bytes, int pe, bool nbi = false);
  void get(Domain& d, void* dest, const void* src, size_t bytes, int pe, bool nbi = false);
  // Strided: `n` elements of `elem` bytes; strides in elements (OpenSHMEM iput/iget).
  void iput(Domain& d, void* dest, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
            size_t n, size_t elem, int pe);
  void iget(Domain& d, void* dest, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
            size_t n, size_t elem, int pe);
  // Data first, then the 64-bit signal at sig_addr updated (set or add): a PE that
  // sees the signal sees the data.
  void put_signal(Domain& d, void* dest, const void* src, size_t bytes, uint64_t* sig_addr,
                  uint64_t signal, SignalOp op, int pe, bool nbi = false);
  uint64_t signal_fetch(const uint64_t* sig_addr);

  // Atomic on `target` (symmetric, naturally aligned) at `pe`. `operand` and
  // `compare` point to values of `type`; `fetched` (may be null for non-fetching
  // ops) receives the old value. nbi: fetched is written by quiet(d) at the latest.
  void atomic(Domain& d, AmoOp op, AmoType type, void* target, const void* operand,
              const void* compare, void* fetched, int pe, bool nbi = false);

  void fence(Domain& d);
  void quiet(Domain& d);

  // Waits until cond() holds, progressing (serving active messages) and blocking
  // the way engine waits do. cond reads local memory that peers write.
  void wait(const std::function<bool()>& cond);
  // One progress round (shmem test calls and polling loops use it).
  void poll();
  // Completes everything outstanding on every domain (finalize, barrier).
  void quiet_all();
  // Ends every PE of the job with `status` (OpenSHMEM global_exit): tells each PE,
  // which exits from its progress (also when blocked in a barrier), then exits.
  [[noreturn]] void global_exit(int status);
  // True while an active-message handler runs on this thread.
  static bool in_handler() noexcept;

  // Wire/size facts for active messages (am.hpp).
  size_t max_medium() const noexcept;
  size_t max_long() const noexcept;

  PgasState& state() noexcept { return *s_; }
  explicit Pgas(std::shared_ptr<PgasState> s) : s_(std::move(s)) {}

 private:
  static Pgas& attach_locked(engine::Context& ctx, size_t heap_bytes);
  std::shared_ptr<PgasState> s_;
};

// Compares a value of `type` at `addr` with `value` (both of that type).
bool compare(Cmp cmp, AmoType type, const volatile void* addr, const void* value);

}  // namespace interlace::pgas
