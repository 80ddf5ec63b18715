// MPI windows: the four creation flavours, MPI_Win_free, attach/detach, and the
// queries (group, name, info, predefined attributes).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "compat/mpi/mpi_attr.hpp"
#include "compat/mpi/mpi_info.hpp"
#include "compat/mpi/mpi_win.hpp"

namespace interlace::mpi {

namespace {
std::mutex g_mu;
// Handles are never reused, so a late message can never reach a newer window.
std::vector<std::unique_ptr<WinObj>> g_wins(1);
std::atomic<uint64_t> g_gen{1};  // bumped when a window goes away (win_find's memo)

std::string label(MPI_Win w) { return w == MPI_WIN_NULL ? "MPI_WIN_NULL" : "window " + std::to_string(w); }

bool predefined_attr(int h, int keyval, void* val) {
  WinObj* w = win_find(h);
  if (!w) return false;
  auto out = static_cast<void**>(val);
  switch (keyval) {
    case MPI_WIN_BASE: *out = w->base; return true;
    case MPI_WIN_SIZE: *out = &w->bytes; return true;
    case MPI_WIN_DISP_UNIT: *out = &w->disp_unit; return true;
    case MPI_WIN_CREATE_FLAVOR: *out = &w->flavor; return true;
    case MPI_WIN_MODEL: *out = &w->model; return true;
    default: return false;
  }
}

void check_handle(int h) { win_obj(h); }

void once() {
  static bool done = [] {
    attr_register_predefined(AttrKind::win, predefined_attr);
    attr_register_handle_check(AttrKind::win, check_handle);
    return true;
  }();
  (void)done;
}

void check_args(const char* call, MPI_Aint size, MPI_Aint disp_unit) {
  if (size < 0) raise(MPI_ERR_SIZE, std::string(call) + ": size " + std::to_string(size) + " is negative");
  if (disp_unit <= 0 || disp_unit > INT32_MAX)
    raise(MPI_ERR_DISP, std::string(call) + ": disp_unit " + std::to_string(disp_unit) +
                            " is not a positive int");
}

void call_ok(int rc, const char* what) {
  if (rc != MPI_SUCCESS) raise(MPI_ERR_INTERN, std::string(what) + " inside a window call failed");
}

// A shared segment for MPI_Win_allocate_shared (and MPI_Win_allocate on one host):
// rank 0 creates it, the others map it by name (so it works over any fabric, as long
// as the ranks share a host), and it is unlinked once everyone has it. Segments are
// contiguous in rank order; the accumulate lock words follow them, one cache line
// per rank, then the passive-target lock words, as many. Returns false (everyone agrees) when some rank cannot map it.
bool map_shared(WinObj& w, const std::vector<MPI_Aint>& sizes) {
  size_t total = 0;
  for (MPI_Aint s : sizes) total += static_cast<size_t>(s);
  const size_t locks = (total + 63) / 64 * 64;
  w.shm_len = locks + static_cast<size_t>(w.size) * 128;
  static int counter = 0;
  char name[64] = {};
  if (w.rank == 0) std::snprintf(name, sizeof name, "/il-mpiwin-%d-%d", static_cast<int>(getpid()), ++counter);
  call_ok(MPI_Bcast(name, sizeof name, MPI_CHAR, 0, w.comm), "MPI_Bcast");
  int fd = -1;
  if (w.rank == 0) {
    fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd >= 0 && ftruncate(fd, static_cast<off_t>(w.shm_len)) != 0) {
      close(fd);
      fd = -1;
    }
  }
  call_ok(MPI_Barrier(w.comm), "MPI_Barrier");
  if (w.rank != 0) fd = shm_open(name, O_RDWR, 0600);
  void* m = fd >= 0 ? mmap(nullptr, w.shm_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (fd >= 0) close(fd);
  int ok = m != MAP_FAILED, all = 0;
  call_ok(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, w.comm), "MPI_Allreduce");
  if (w.rank == 0) shm_unlink(name);
  if (!all) {
    if (m != MAP_FAILED) munmap(m, w.shm_len);
    return false;
  }
  w.shm_map = m;  // ftruncate's zero pages: the lock words start free
  w.acc_locks = reinterpret_cast<std::atomic<uint32_t>*>(static_cast<std::byte*>(m) + locks);
  w.lock_words = w.acc_locks + static_cast<size_t>(w.size) * 16;
  size_t off = 0;
  for (int r = 0; r < w.size; ++r) {
    w.peers[r].shared = static_cast<std::byte*>(m) + off;
    off += static_cast<size_t>(sizes[r]);
  }
  w.base = w.bytes ? w.peers[w.rank].shared : nullptr;
  w.direct = true;
  return true;
}

// INTERLACE_MPI_WIN_DIRECT=0 keeps MPI_Win_allocate on messages (for comparison).
bool direct_allowed() {
  const char* e = std::getenv("INTERLACE_MPI_WIN_DIRECT");
  return !e || std::string(e) != "0";
}

MPI_Win create(const char* call, MPI_Comm comm, MPI_Info info, int flavor, void* base, MPI_Aint size,
              MPI_Aint disp_unit) {
  require_initialized(call);
  check_args(call, size, disp_unit);
  const Communicator& parent = comm_of(comm);
  InfoItems hints = info_items(info);
  once();
  win_pgas();  // handlers registered before any peer can send to this window
  auto w = std::make_unique<WinObj>();
  WinObj& o = *w;
  o.comm = new_comm(parent.dup(), MPI_ERRORS_ARE_FATAL);
  o.rank = parent.rank();
  o.size = parent.size();
  for (int r = 0; r < o.size; ++r) o.world.push_back(parent.world_rank_of(r));
  o.flavor = flavor;
  o.hints = std::move(hints);
  o.base = base;
  o.bytes = size;
  o.disp_unit = static_cast<int>(disp_unit);
  o.peers.resize(o.size);
  o.outstanding = std::make_unique<std::atomic<int64_t>[]>(o.size);
  o.in_flight = std::make_unique<std::atomic<uint32_t>[]>(o.size);
  o.posts = std::make_unique<std::atomic<int>[]>(o.size);
  for (int r = 0; r < o.size; ++r) o.outstanding[r] = 0, o.in_flight[r] = 0, o.posts[r] = 0;
  o.locked.assign(o.size, 0);
  o.started.assign(o.size, 0);
  MPI_Win h;
  {
    std::lock_guard<std::mutex> g(g_mu);
    h = static_cast<MPI_Win>(g_wins.size());
    g_wins.push_back(std::move(w));
  }
  struct Info { int64_t key, bytes, disp; };
  Info mine{h, size, disp_unit};
  std::vector<Info> all(o.size);
  call_ok(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, o.comm), "MPI_Allgather");
  std::vector<MPI_Aint> sizes(o.size);
  for (int r = 0; r < o.size; ++r) {
    o.peers[r].key = static_cast<int>(all[r].key);
    o.peers[r].bytes = sizes[r] = all[r].bytes;
    o.peers[r].disp_unit = static_cast<int>(all[r].disp);
  }
  try {
    const bool shared = flavor == MPI_WIN_FLAVOR_SHARED;
    if ((shared || (flavor == MPI_WIN_FLAVOR_ALLOCATE && direct_allowed())) && !map_shared(o, sizes) && shared)
      raise(MPI_ERR_RMA_SHARED, std::string(call) + ": cannot map a shared segment of " +
                                    std::to_string(o.shm_len) + " bytes on every rank (are all ranks of the "
                                    "communicator on one host?)");
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE && !o.direct && size > 0) {
      o.owned = std::aligned_alloc(64, (static_cast<size_t>(size) + 63) / 64 * 64);
      if (!o.owned) raise(MPI_ERR_NO_MEM, std::string(call) + ": cannot allocate " + std::to_string(size) + " bytes");
      o.base = o.owned;
    }
  } catch (...) {
    std::lock_guard<std::mutex> g(g_mu);
    g_wins[h].reset();
    g_gen.fetch_add(1, std::memory_order_acq_rel);
    throw;
  }
  return h;
}

MPI_Comm comm_or_world(MPI_Win w) {
  WinObj* o = win_find(w);
  return o ? o->comm : MPI_COMM_NULL;
}
}  // namespace

WinObj* win_find(int key) noexcept {
  // Every call looks its window up: a per-thread memo of the last one, valid while no
  // window was freed since (the generation), saves the mutex on the fast path.
  struct Memo {
    int key = 0;
    WinObj* obj = nullptr;
    uint64_t gen = 0;
  };
  thread_local Memo memo;
  Memo& m = memo;  // one TLS lookup
  const uint64_t gen = g_gen.load(std::memory_order_acquire);
  if (key == m.key && m.obj && gen == m.gen) return m.obj;
  std::lock_guard<std::mutex> g(g_mu);
  if (key <= 0 || static_cast<size_t>(key) >= g_wins.size()) return nullptr;
  m = Memo{key, g_wins[key].get(), gen};
  return m.obj;
}

WinObj& win_obj(MPI_Win w) {
  WinObj* o = win_find(w);
  if (!o) raise(MPI_ERR_WIN, label(w) + " is not a valid window");
  return *o;
}

MPI_Comm win_comm(MPI_Win w) { return comm_or_world(w); }


void win_check_rank(const char* call, const WinObj& w, int rank) {
  if (rank == MPI_PROC_NULL) return;
  if (rank < 0 || rank >= w.size)
    raise(MPI_ERR_RANK, std::string(call) + ": rank " + std::to_string(rank) + " is not in the window's group of " +
                            std::to_string(w.size) + " (0-" + std::to_string(w.size - 1) + ")");
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return guard("MPI_Win_create", comm, [&] {
    need(win, "MPI_Win_create", "win");
    if (size > 0 && !base) raise(MPI_ERR_ARG, "MPI_Win_create: base is NULL with size " + std::to_string(size));
    *win = create("MPI_Win_create", comm, info, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit);
  });
}
int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return MPI_Win_create_c(base, size, disp_unit, info, comm, win);
}

int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return guard("MPI_Win_allocate", comm, [&] {
    need(win, "MPI_Win_allocate", "win");
    need(baseptr, "MPI_Win_allocate", "baseptr");
    *win = create("MPI_Win_allocate", comm, info, MPI_WIN_FLAVOR_ALLOCATE, nullptr, size, disp_unit);
    *static_cast<void**>(baseptr) = win_obj(*win).base;
  });
}
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return MPI_Win_allocate_c(size, disp_unit, info, comm, baseptr, win);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                              MPI_Win* win) {
  return guard("MPI_Win_allocate_shared", comm, [&] {
    need(win, "MPI_Win_allocate_shared", "win");
    need(baseptr, "MPI_Win_allocate_shared", "baseptr");
    *win = create("MPI_Win_allocate_shared", comm, info, MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit);
    *static_cast<void**>(baseptr) = win_obj(*win).base;
  });
}
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                            MPI_Win* win) {
  return MPI_Win_allocate_shared_c(size, disp_unit, info, comm, baseptr, win);
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return guard("MPI_Win_create_dynamic", comm, [&] {
    need(win, "MPI_Win_create_dynamic", "win");
    *win = create("MPI_Win_create_dynamic", comm, info, MPI_WIN_FLAVOR_DYNAMIC, nullptr, 0, 1);
  });
}

int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  return win_call("MPI_Win_shared_query", win, [&] {
    const char* call = "MPI_Win_shared_query";
    WinObj& w = win_obj(win);
    need(size, call, "size");
    need(disp_unit, call, "disp_unit");
    need(baseptr, call, "baseptr");
    win_check_rank(call, w, rank);
    if (w.flavor != MPI_WIN_FLAVOR_SHARED) {
      // MPI 4.1: other flavours report their memory only where it is shared: our own.
      const bool own = rank == w.rank;
      *size = own ? w.bytes : 0;
      *disp_unit = own ? w.disp_unit : 0;
      *static_cast<void**>(baseptr) = own ? w.base : nullptr;
      return;
    }
    if (rank == MPI_PROC_NULL) {  // the first rank with memory
      rank = 0;
      while (rank < w.size - 1 && w.peers[rank].bytes == 0) ++rank;
    }
    *size = w.peers[rank].bytes;
    *disp_unit = w.peers[rank].disp_unit;
    *static_cast<void**>(baseptr) = w.peers[rank].shared;
  });
}
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  MPI_Aint du = 0;
  const int rc = MPI_Win_shared_query_c(win, rank, size, disp_unit ? &du : nullptr, baseptr);
  if (rc == MPI_SUCCESS) *disp_unit = static_cast<int>(du);
  return rc;
}

int MPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  return win_call("MPI_Win_attach", win, [&] {
    WinObj& w = win_obj(win);
    if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC)
      raise(MPI_ERR_RMA_FLAVOR, "MPI_Win_attach: " + label(win) + " was not created by MPI_Win_create_dynamic");
    if (size < 0) raise(MPI_ERR_SIZE, "MPI_Win_attach: size " + std::to_string(size) + " is negative");
    if (size > 0 && !base) raise(MPI_ERR_ARG, "MPI_Win_attach: base is NULL with size " + std::to_string(size));
    const auto b = reinterpret_cast<uintptr_t>(base);
    std::lock_guard<std::mutex> g(w.region_mu);
    for (auto& [rb, rn] : w.regions)
      if (b < rb + rn && rb < b + static_cast<uintptr_t>(size))
        raise(MPI_ERR_RMA_ATTACH, "MPI_Win_attach: " + std::to_string(size) + " bytes at address " +
                                      std::to_string(b) + " overlap memory already attached");
    w.regions.emplace_back(b, static_cast<size_t>(size));
  });
}

int MPI_Win_detach(MPI_Win win, const void* base) {
  return win_call("MPI_Win_detach", win, [&] {
    WinObj& w = win_obj(win);
    if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC)
      raise(MPI_ERR_RMA_FLAVOR, "MPI_Win_detach: " + label(win) + " was not created by MPI_Win_create_dynamic");
    const auto b = reinterpret_cast<uintptr_t>(base);
    std::lock_guard<std::mutex> g(w.region_mu);
    for (auto it = w.regions.begin(); it != w.regions.end(); ++it)
      if (it->first == b) {
        w.regions.erase(it);
        return;
      }
    raise(MPI_ERR_RMA_ATTACH, "MPI_Win_detach: address " + std::to_string(b) + " is not the base of attached memory");
  });
}

int MPI_Win_free(MPI_Win* win) {
  return win_call("MPI_Win_free", win ? *win : MPI_WIN_NULL, [&] {
    need(win, "MPI_Win_free", "win");
    const MPI_Win h = *win;
    WinObj& w = win_obj(h);
    for (int r = 0; r < w.size; ++r)
      if (w.locked[r])
        raise(MPI_ERR_RMA_SYNC, "MPI_Win_free: " + label(h) + " still holds a lock on rank " + std::to_string(r));
    if (w.access_pscw || w.exposure)
      raise(MPI_ERR_RMA_SYNC, "MPI_Win_free: " + label(h) + " has an open post/start epoch");
    win_flush("MPI_Win_free", w, -1);
    call_ok(MPI_Barrier(w.comm), "MPI_Barrier");  // every origin's operations are done
    attr_delete_all(AttrKind::win, h);
    win_errhandler_forget(h);
    std::unique_ptr<WinObj> gone;
    {
      std::lock_guard<std::mutex> g(g_mu);
      gone = std::move(g_wins[h]);
      g_gen.fetch_add(1, std::memory_order_acq_rel);
    }
    if (gone->shm_map) munmap(gone->shm_map, gone->shm_len);
    std::free(gone->owned);
    MPI_Comm c = gone->comm;
    MPI_Comm_free(&c);
    *win = MPI_WIN_NULL;
  });
}

int MPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  return win_call("MPI_Win_get_group", win, [&] {
    WinObj& w = win_obj(win);
    need(group, "MPI_Win_get_group", "group");
    *group = state().groups.add(GroupObj{w.world});
  });
}

int MPI_Win_set_name(MPI_Win win, const char* win_name) {
  return win_call("MPI_Win_set_name", win, [&] {
    WinObj& w = win_obj(win);
    need(win_name, "MPI_Win_set_name", "win_name");
    w.name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  });
}

int MPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  return win_call("MPI_Win_get_name", win, [&] {
    WinObj& w = win_obj(win);
    need(win_name, "MPI_Win_get_name", "win_name");
    need(resultlen, "MPI_Win_get_name", "resultlen");
    std::memcpy(win_name, w.name.c_str(), w.name.size() + 1);
    *resultlen = static_cast<int>(w.name.size());
  });
}

// Windows act on no hint yet; they keep the hints given (at creation and by
// set_info) and return them from get_info, as the standard allows for ignored ones.
int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
  return win_call("MPI_Win_set_info", win, [&] {
    WinObj& w = win_obj(win);
    InfoItems add = info_items(info);
    for (auto& [k, v] : add) {
      auto it = std::find_if(w.hints.begin(), w.hints.end(), [&](auto& kv) { return kv.first == k; });
      if (it != w.hints.end()) it->second = v;
      else w.hints.emplace_back(k, v);
    }
  });
}

int MPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  return win_call("MPI_Win_get_info", win, [&] {
    WinObj& w = win_obj(win);
    need(info_used, "MPI_Win_get_info", "info_used");
    *info_used = info_new(w.hints);
  });
}

}  // extern "C"
