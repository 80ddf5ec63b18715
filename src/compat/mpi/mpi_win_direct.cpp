// Operations on direct windows (MPI_Win_allocate and MPI_Win_allocate_shared whose
// ranks share a host): every rank maps every segment, so put and get are copies
// complete on return, and accumulates take the target's lock word in the segment,
// which makes them atomic against every other origin's (all of them come this way:
// a window is direct for every rank or for none).
#include <sched.h>

#include <cstring>

#include "compat/mpi/mpi_win.hpp"

namespace interlace::mpi {

namespace {
class AccLock {
 public:
  explicit AccLock(std::atomic<uint32_t>& w) : w_(w) {
    for (int spins = 0; w_.exchange(1, std::memory_order_acquire) != 0;) {
      // Ranks may outnumber cores: after a short spin, let the holder run.
      while (w_.load(std::memory_order_relaxed) != 0)
        if (++spins > 64) sched_yield();
    }
  }
  ~AccLock() { w_.store(0, std::memory_order_release); }
  AccLock(const AccLock&) = delete;
  AccLock& operator=(const AccLock&) = delete;

 private:
  std::atomic<uint32_t>& w_;
};
}  // namespace

void win_direct(WinObj& w, WinData&& d) {
  auto* base = static_cast<std::byte*>(w.peers[d.target].shared);
  size_t o = 0;
  switch (d.op) {
    case WinOp::put:
      for (const Seg& s : d.segs) std::memcpy(base + s.off, d.data + o, s.len), o += s.len;
      break;
    case WinOp::get:
      for (const Seg& s : d.segs) std::memcpy(d.result + o, base + s.off, s.len), o += s.len;
      break;
    case WinOp::acc:
    case WinOp::get_acc: {
      AccLock g(w.acc_locks[d.target * 16]);
      for (const Seg& s : d.segs) {
        if (d.result) std::memcpy(d.result + o, base + s.off, s.len);
        if (d.data) win_apply(d.mop, d.basic, d.unit, d.data + o, base + s.off, s.len);
        o += s.len;
      }
      break;
    }
    case WinOp::cas: {
      AccLock g(w.acc_locks[d.target * 16]);
      std::byte* at = base + d.segs[0].off;
      std::memcpy(d.result, at, d.bytes);
      if (std::memcmp(at, d.data, d.bytes) == 0) std::memcpy(at, d.data + d.bytes, d.bytes);
      break;
    }
    default: break;
  }
  if (d.on_result) d.on_result();
}

void win_direct_acc(WinObj& w, int target, std::byte* at, const std::byte* data, std::byte* result, size_t bytes,
                    MPI_Op op, MPI_Datatype basic, size_t unit) {
  AccLock g(w.acc_locks[target * 16]);
  if (result) std::memcpy(result, at, bytes);
  if (data) win_apply(op, basic, unit, data, at, bytes);
}

namespace {
// A lock word holds the number of shared holders, or kExclusive for the one exclusive
// holder; a shared locker never adds to a word with kExclusive set.
constexpr uint32_t kExclusive = 1u << 31;
}  // namespace

bool win_direct_try_lock(WinObj& w, int target, int type) {
  std::atomic<uint32_t>& word = w.lock_words[target * 16];
  uint32_t v = word.load(std::memory_order_relaxed);
  if (type == MPI_LOCK_EXCLUSIVE)
    return v == 0 && word.compare_exchange_strong(v, kExclusive, std::memory_order_acquire, std::memory_order_relaxed);
  while (!(v & kExclusive))
    if (word.compare_exchange_weak(v, v + 1, std::memory_order_acquire, std::memory_order_relaxed)) return true;
  return false;
}

void win_direct_unlock(WinObj& w, int target, int type) {
  w.lock_words[target * 16].fetch_sub(type == MPI_LOCK_EXCLUSIVE ? kExclusive : 1, std::memory_order_release);
}

}  // namespace interlace::mpi
