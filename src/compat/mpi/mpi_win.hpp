// Internal: MPI windows (one-sided communication) over the PGAS model's active
// messages (docs/mpi-rma.md).
//   mpi_win_create.cpp  creation flavours, free, attach/detach, queries, attributes
//   mpi_win_am.cpp      the wire protocol: requests served by the target's progress
//   mpi_win_rma.cpp     Put/Get/Accumulate/... and their request forms
//   mpi_win_sync.cpp    fence, post/start/complete/wait, locks, flush, sync
// Every operation travels as an active message that the target applies to its own
// memory, so a window may expose any memory (MPI_Win_create, attach) and accumulates
// are atomic per element: one target applies them one message at a time.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compat/mpi/mpi_errh.hpp"
#include "compat/mpi/mpi_impl.hpp"

namespace interlace::pgas { class Pgas; }

namespace interlace::mpi {

struct WinObj {
  MPI_Comm comm = MPI_COMM_NULL;   // a private duplicate: barriers, error handler
  int rank = 0, size = 0;
  std::vector<int> world;          // window rank -> world rank (the PE)
  int flavor = MPI_WIN_FLAVOR_CREATE;
  int model = MPI_WIN_UNIFIED;
  void* base = nullptr;
  MPI_Aint bytes = 0;
  int disp_unit = 1;
  std::string name;
  std::vector<std::pair<std::string, std::string>> hints;  // info given at creation / set_info
  struct Peer {
    int key = 0;                   // the window's handle in that process
    MPI_Aint bytes = 0;
    int disp_unit = 1;
    void* shared = nullptr;        // shared windows: its segment in our mapping
  };
  std::vector<Peer> peers;
  // Memory this window owns: Win_allocate's block or the shared segment's mapping.
  void* owned = nullptr;
  void* shm_map = nullptr;
  size_t shm_len = 0;
  // Every rank's memory is mapped here (a shared segment on one host): operations are
  // loads and stores, accumulates serialised by a lock word per target in the segment.
  bool direct = false;
  std::atomic<uint32_t>* acc_locks = nullptr;  // rank r's word at acc_locks[r * 16]
  // Rank r's MPI_Win_lock word at lock_words[r * 16] (direct windows only; the others
  // keep lock state at the target, lock_shared/lock_excl below).
  std::atomic<uint32_t>* lock_words = nullptr;

  // Origin side (the calling thread only, except the counters replies decrement).
  std::unique_ptr<std::atomic<int64_t>[]> outstanding;  // per target: unanswered messages
  std::unique_ptr<std::atomic<uint32_t>[]> in_flight;   // per target: their bytes (flow control)
  std::vector<uint8_t> locked;     // per target: 0, MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE
  bool lock_all = false;
  bool fence_open = false;
  std::vector<uint8_t> started;    // per target: in the current MPI_Win_start group
  bool access_pscw = false;
  std::atomic<bool> has_err{false};
  std::mutex err_mu;               // errors the targets reported back
  int err_class = MPI_SUCCESS;
  std::string err_msg;

  // Target side (changed by the handlers, which one target runs one at a time).
  int lock_shared = 0;
  bool lock_excl = false;
  std::unique_ptr<std::atomic<int>[]> posts;  // per origin: MPI_Win_post notices
  std::atomic<int> completes{0};
  int post_count = 0;              // origins in the current MPI_Win_post group
  bool exposure = false;
  std::mutex region_mu;            // dynamic windows: attached regions
  std::vector<std::pair<uintptr_t, size_t>> regions;
};

// The process's windows; handle 0 is MPI_WIN_NULL. Lookups from handlers and from
// calls share a mutex; objects do not move once created.
WinObj& win_obj(MPI_Win w);        // MPI_ERR_WIN naming the handle
WinObj* win_find(int key) noexcept;
MPI_Comm win_comm(MPI_Win w);      // the window's private communicator (null if none)

// Runs the body of a call on window `win`; errors go to the window's error handler
// (for a handle that is not a window: MPI_COMM_WORLD's), mpi_errh.hpp.
template <class Body>
inline int win_call(const char* call, MPI_Win win, Body&& body) {
  return win_guard(call, win, std::forward<Body>(body));
}

// The PGAS model the windows run on (attached and the handlers registered on first use).
pgas::Pgas& win_pgas();
// Waits (progressing) until cond() holds; INTERLACE_TIMEOUT bounds it.
void win_wait(const char* call, const std::function<bool()>& cond);
// Completes every operation to target t (or all targets with t < 0) and raises the
// first error a target reported back.
void win_flush(const char* call, WinObj& w, int t);
// Raises what a target reported back since the last call (MPI_ERR_RMA_RANGE...).
void win_raise_pending(WinObj& w);

// ---- protocol (mpi_win_am.cpp) ---------------------------------------------------------
enum class WinOp : uint32_t { put = 1, get, acc, get_acc, cas, lock, unlock, post, complete };

// A contiguous piece of the target window: byte offset from its base (the address
// itself for a dynamic window) and length.
struct Seg {
  uint64_t off;
  uint64_t len;
};

// One data operation to target rank t: segs (in target order) cover `bytes` bytes;
// `data` holds them packed (put, accumulate, compare+origin for cas) or is null;
// `result` receives them packed for the fetching ops (get, get_acc, cas), complete at
// flush. unit: pieces split only at multiples of it (an element, for atomicity).
struct WinData {
  WinData(WinOp o, int t, std::vector<Seg> s) : op(o), target(t), segs(std::move(s)) {}
  WinOp op;
  int target;
  std::vector<Seg> segs;
  const std::byte* data = nullptr;
  size_t bytes = 0;
  MPI_Op mop = MPI_REPLACE;
  MPI_Datatype basic = MPI_BYTE;
  size_t unit = 1;
  // Fetching ops: where the packed result lands and what runs once it is all there.
  std::byte* result = nullptr;
  std::function<void()> on_result;
  std::shared_ptr<void> keep;
};
void win_send_data(WinObj& w, MPI_Win h, WinData&& d);
// The same operation done with loads and stores on a direct window (mpi_win_direct.cpp).
void win_direct(WinObj& w, WinData&& d);
// An accumulate of `bytes` contiguous bytes of predefined type `basic` at `at` in
// target's segment: result (may be null) gets the old contents, data (null: MPI_NO_OP)
// is combined in, under the target's lock word.
void win_direct_acc(WinObj& w, int target, std::byte* at, const std::byte* data, std::byte* result, size_t bytes,
                    MPI_Op op, MPI_Datatype basic, size_t unit);
// MPI_Win_lock/unlock on a direct window: the target's lock word in the segment, taken
// and released with atomics (no message, and nothing for the target to progress).
bool win_direct_try_lock(WinObj& w, int target, int type);
void win_direct_unlock(WinObj& w, int target, int type);
// inout = in op inout over len bytes of `basic` elements (REPLACE copies, NO_OP nothing).
void win_apply(MPI_Op op, MPI_Datatype basic, size_t unit, const std::byte* in, std::byte* at, size_t len);
// Control messages: lock (returns whether granted), unlock, post, complete.
bool win_send_lock(WinObj& w, MPI_Win h, int target, int type);
void win_send_ctl(WinObj& w, MPI_Win h, WinOp op, int target);

// Checks a rank of the window (MPI_ERR_RANK naming it); MPI_PROC_NULL is allowed.
void win_check_rank(const char* call, const WinObj& w, int rank);

}  // namespace interlace::mpi
