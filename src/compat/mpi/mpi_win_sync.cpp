// Synchronisation of MPI windows: fence, post/start/complete/wait/test, locks,
// flush and sync. Completion is counted at the origin (every message is answered),
// so an epoch ends when the answers are in; fence and PSCW add the matching between
// processes, locks a grant from the target (retried while another holds it).
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "compat/mpi/mpi_win.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/engine/context.hpp"
#include "interlace/pgas/pgas.hpp"

namespace interlace::mpi {

namespace {
// A full barrier (stores before it are visible before loads after it). A locked
// read-modify-write does that on x86 at a fraction of mfence's cost, which showed in
// the 8-byte put+flush; elsewhere the standard fence.
inline void full_fence() {
#if defined(__x86_64__)
  std::atomic<int> word{0};  // on the stack: no line shared between threads
  word.fetch_or(0, std::memory_order_seq_cst);
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}
}  // namespace

void win_raise_pending(WinObj& w) {
  if (!w.has_err.load(std::memory_order_acquire)) return;
  int cls;
  std::string msg;
  {
    std::lock_guard<std::mutex> g(w.err_mu);
    cls = w.err_class;
    msg.swap(w.err_msg);
    w.err_class = MPI_SUCCESS;
    w.has_err.store(false, std::memory_order_release);
  }
  if (cls != MPI_SUCCESS) raise(cls, msg);
}

void win_flush(const char* call, WinObj& w, int t) {
  if (t >= 0 && w.outstanding[t].load(std::memory_order_acquire) == 0) {
    // Nothing in flight (always so on a direct window): no wait to set up. On a
    // message-carried window, serve what others asked of it: their puts, locks and
    // unlocks come from this process's progress, and a process that spins on its own
    // window memory calls flush or sync as its progress (mpi4py.util.sync does);
    // without a poll its peers would wait on it forever. A direct window needs
    // nothing from its target, and its flush stays a fence.
    if (!w.direct) win_pgas().poll();
  } else if (t >= 0) {
    win_wait(call, [&w, t] { return w.outstanding[t].load(std::memory_order_acquire) == 0; });
  } else {
    win_wait(call, [&w] {
      for (int r = 0; r < w.size; ++r)
        if (w.outstanding[r].load(std::memory_order_acquire) != 0) return false;
      return true;
    });
  }
  full_fence();
  win_raise_pending(w);
}

namespace {
void check_assert(const char* call, int assert, int allowed) {
  if (assert & ~allowed)
    raise(MPI_ERR_ASSERT, std::string(call) + ": assert " + std::to_string(assert) +
                              " has bits that are not valid here (allowed: " + std::to_string(allowed) + ")");
}

// Window ranks of a group's members (MPI_ERR_GROUP naming one that is not in the window).
std::vector<int> ranks_of(const char* call, const WinObj& w, MPI_Group g) {
  const GroupObj& grp = group_obj(g);
  std::vector<int> out;
  for (int world : grp.members) {
    int r = 0;
    while (r < w.size && w.world[r] != world) ++r;
    if (r == w.size)
      raise(MPI_ERR_GROUP, std::string(call) + ": world rank " + std::to_string(world) +
                               " of the group is not in the window's group");
    out.push_back(r);
  }
  return out;
}

void lock_one(WinObj& w, MPI_Win h, int type, int rank) {
  if (w.direct) {
    // The holder releases the word without our help, so a denied locker only has to
    // leave it the core (ranks may outnumber cores), progressing for others meanwhile.
    // Bounded like every other wait (INTERLACE_TIMEOUT): a holder that died never
    // releases the word.
    Deadline until;
    for (int tries = 0; !win_direct_try_lock(w, rank, type); ++tries) {
      if (tries < 64) continue;
      win_pgas().poll();
      if (tries <= 1024) {
        sched_yield();
        continue;
      }
      if (tries == 1025) until = Deadline::after(win_pgas().context().config().op_timeout_s);
      if (until.expired())
        raise(MPI_ERR_OTHER, "the window lock on rank " + std::to_string(rank) +
                                 " was not released within INTERLACE_TIMEOUT");
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    return;
  }
  // Denied while another holds it: ask again, progressing between tries so that our
  // own window keeps serving others (a lock to ourselves goes through the same path).
  for (int tries = 0; !win_send_lock(w, h, rank, type); ++tries) {
    win_pgas().poll();
    if (tries > 16) std::this_thread::sleep_for(std::chrono::microseconds(std::min(tries, 200)));
    else sched_yield();
  }
}

// Completes the epoch's operations to `rank`, then releases the lock it holds there.
void unlock_one(WinObj& w, MPI_Win h, int rank) {
  if (w.direct) {
    win_flush("MPI_Win_unlock", w, rank);
    win_direct_unlock(w, rank, w.locked[rank]);
    return;
  }
  win_send_ctl(w, h, WinOp::unlock, rank);
  win_flush("MPI_Win_unlock", w, rank);
}
}  // namespace

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Win_fence(int assert, MPI_Win win) {
  return win_call("MPI_Win_fence", win, [&] {
    const char* call = "MPI_Win_fence";
    WinObj& w = win_obj(win);
    check_assert(call, assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED);
    if (w.access_pscw || w.exposure || w.lock_all)
      raise(MPI_ERR_RMA_SYNC, std::string(call) + ": window " + std::to_string(win) +
                                  " is in a post/start or lock epoch");
    win_flush(call, w, -1);
    // NOPRECEDE: nothing to complete, but the barrier still orders the epochs (a
    // process may not access a window before its target reached the fence).
    if (MPI_Barrier(w.comm) != MPI_SUCCESS) raise(MPI_ERR_INTERN, std::string(call) + ": barrier failed");
    w.fence_open = !(assert & MPI_MODE_NOSUCCEED);
  });
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  return win_call("MPI_Win_post", win, [&] {
    const char* call = "MPI_Win_post";
    WinObj& w = win_obj(win);
    check_assert(call, assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT);
    if (w.exposure) raise(MPI_ERR_RMA_SYNC, std::string(call) + ": an exposure epoch is already open");
    const std::vector<int> ranks = ranks_of(call, w, group);
    w.post_count = static_cast<int>(ranks.size());
    w.exposure = true;
    if (!(assert & MPI_MODE_NOCHECK))
      for (int r : ranks) win_send_ctl(w, win, WinOp::post, r);
  });
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  return win_call("MPI_Win_start", win, [&] {
    const char* call = "MPI_Win_start";
    WinObj& w = win_obj(win);
    check_assert(call, assert, MPI_MODE_NOCHECK);
    if (w.access_pscw) raise(MPI_ERR_RMA_SYNC, std::string(call) + ": an access epoch is already open");
    const std::vector<int> ranks = ranks_of(call, w, group);
    if (!(assert & MPI_MODE_NOCHECK))
      win_wait(call, [&] {
        for (int r : ranks)
          if (w.posts[r].load(std::memory_order_acquire) == 0) return false;
        return true;
      });
    std::fill(w.started.begin(), w.started.end(), 0);
    for (int r : ranks) {
      if (!(assert & MPI_MODE_NOCHECK)) w.posts[r].fetch_sub(1, std::memory_order_acq_rel);
      w.started[r] = 1;
    }
    w.access_pscw = true;
  });
}

int MPI_Win_complete(MPI_Win win) {
  return win_call("MPI_Win_complete", win, [&] {
    WinObj& w = win_obj(win);
    if (!w.access_pscw) raise(MPI_ERR_RMA_SYNC, "MPI_Win_complete: no access epoch was started (MPI_Win_start)");
    win_flush("MPI_Win_complete", w, -1);
    for (int r = 0; r < w.size; ++r)
      if (w.started[r]) win_send_ctl(w, win, WinOp::complete, r);
    std::fill(w.started.begin(), w.started.end(), 0);
    w.access_pscw = false;
  });
}

namespace {
bool exposure_done(WinObj& w) { return w.completes.load(std::memory_order_acquire) >= w.post_count; }
void end_exposure(WinObj& w) {
  w.completes.fetch_sub(w.post_count, std::memory_order_acq_rel);
  w.exposure = false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
}  // namespace

int MPI_Win_wait(MPI_Win win) {
  return win_call("MPI_Win_wait", win, [&] {
    WinObj& w = win_obj(win);
    if (!w.exposure) raise(MPI_ERR_RMA_SYNC, "MPI_Win_wait: no exposure epoch was posted (MPI_Win_post)");
    win_wait("MPI_Win_wait", [&] { return exposure_done(w); });
    end_exposure(w);
  });
}

int MPI_Win_test(MPI_Win win, int* flag) {
  return win_call("MPI_Win_test", win, [&] {
    WinObj& w = win_obj(win);
    if (!flag) raise(MPI_ERR_ARG, "MPI_Win_test: flag is a null pointer");
    if (!w.exposure) raise(MPI_ERR_RMA_SYNC, "MPI_Win_test: no exposure epoch was posted (MPI_Win_post)");
    if (!exposure_done(w)) win_pgas().poll();
    *flag = exposure_done(w);
    if (*flag) end_exposure(w);
  });
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  return win_call("MPI_Win_lock", win, [&] {
    const char* call = "MPI_Win_lock";
    WinObj& w = win_obj(win);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
      raise(MPI_ERR_LOCKTYPE, std::string(call) + ": lock_type " + std::to_string(lock_type) +
                                  " is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE");
    check_assert(call, assert, MPI_MODE_NOCHECK);
    win_check_rank(call, w, rank);
    if (rank == MPI_PROC_NULL) return;
    if (w.locked[rank] || w.lock_all)
      raise(MPI_ERR_RMA_SYNC, std::string(call) + ": rank " + std::to_string(rank) + " is already locked");
    if (!(assert & MPI_MODE_NOCHECK)) lock_one(w, win, lock_type, rank);
    // NOCHECK: no lock was taken, so unlock must not release one (type 0 below).
    w.locked[rank] = static_cast<uint8_t>(assert & MPI_MODE_NOCHECK ? 1 : lock_type);
  });
}

int MPI_Win_unlock(int rank, MPI_Win win) {
  return win_call("MPI_Win_unlock", win, [&] {
    WinObj& w = win_obj(win);
    win_check_rank("MPI_Win_unlock", w, rank);
    if (rank == MPI_PROC_NULL) return;
    if (!w.locked[rank])
      raise(MPI_ERR_RMA_SYNC, "MPI_Win_unlock: rank " + std::to_string(rank) + " is not locked");
    if (w.locked[rank] == 1) win_flush("MPI_Win_unlock", w, rank);
    else unlock_one(w, win, rank);
    w.locked[rank] = 0;
  });
}

int MPI_Win_lock_all(int assert, MPI_Win win) {
  return win_call("MPI_Win_lock_all", win, [&] {
    WinObj& w = win_obj(win);
    check_assert("MPI_Win_lock_all", assert, MPI_MODE_NOCHECK);
    if (w.lock_all) raise(MPI_ERR_RMA_SYNC, "MPI_Win_lock_all: the window is already locked (lock_all)");
    for (int r = 0; r < w.size; ++r)
      if (w.locked[r]) raise(MPI_ERR_RMA_SYNC, "MPI_Win_lock_all: rank " + std::to_string(r) + " is already locked");
    for (int r = 0; r < w.size; ++r) {
      if (!(assert & MPI_MODE_NOCHECK)) lock_one(w, win, MPI_LOCK_SHARED, r);
      w.locked[r] = static_cast<uint8_t>(assert & MPI_MODE_NOCHECK ? 1 : MPI_LOCK_SHARED);
    }
    w.lock_all = true;
  });
}

int MPI_Win_unlock_all(MPI_Win win) {
  return win_call("MPI_Win_unlock_all", win, [&] {
    WinObj& w = win_obj(win);
    if (!w.lock_all) raise(MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all: the window is not locked by MPI_Win_lock_all");
    if (w.direct) {
      win_flush("MPI_Win_unlock_all", w, -1);
      for (int r = 0; r < w.size; ++r)
        if (w.locked[r] != 1) win_direct_unlock(w, r, w.locked[r]);
    } else {
      for (int r = 0; r < w.size; ++r)
        if (w.locked[r] != 1) win_send_ctl(w, win, WinOp::unlock, r);
      win_flush("MPI_Win_unlock_all", w, -1);
    }
    std::fill(w.locked.begin(), w.locked.end(), 0);
    w.lock_all = false;
  });
}

namespace {
int flush_call(const char* call, int rank, bool all, MPI_Win win) {
  return win_call(call, win, [&] {
    WinObj& w = win_obj(win);
    if (!all) {
      win_check_rank(call, w, rank);
      if (rank == MPI_PROC_NULL) return;
      if (!w.locked[rank])
        raise(MPI_ERR_RMA_SYNC, std::string(call) + ": no passive-target epoch on rank " + std::to_string(rank));
    } else if (std::find_if(w.locked.begin(), w.locked.end(), [](uint8_t l) { return l != 0; }) ==
               w.locked.end()) {
      raise(MPI_ERR_RMA_SYNC, std::string(call) + ": no passive-target epoch is open on the window");
    }
    win_flush(call, w, all ? -1 : rank);
  });
}
}  // namespace

// Local completion is not cheaper than remote here (the answer is the only news from
// the target), so the _local forms complete remotely too.
int MPI_Win_flush(int rank, MPI_Win win) { return flush_call("MPI_Win_flush", rank, false, win); }
int MPI_Win_flush_local(int rank, MPI_Win win) { return flush_call("MPI_Win_flush_local", rank, false, win); }
int MPI_Win_flush_all(MPI_Win win) { return flush_call("MPI_Win_flush_all", 0, true, win); }
int MPI_Win_flush_local_all(MPI_Win win) { return flush_call("MPI_Win_flush_local_all", 0, true, win); }

int MPI_Win_sync(MPI_Win win) {
  return win_call("MPI_Win_sync", win, [&] {
    win_obj(win);
    win_pgas().poll();  // the spin-on-window idiom's progress, as in win_flush
    std::atomic_thread_fence(std::memory_order_seq_cst);
  });
}

}  // extern "C"
