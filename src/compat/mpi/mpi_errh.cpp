// Error handlers: the predefined ones (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN,
// MPI_ERRORS_ABORT), user handlers for communicators, windows and files, and how an
// error reaches them (dispatch_error). User handler objects are never destroyed, only
// made unusable for new Set calls once every reference is freed: a communicator may
// still hold one, and handles are not reused, so a stale one is always recognised.
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "compat/mpi/mpi_core.hpp"
#include "compat/mpi/mpi_errh.hpp"

namespace interlace::mpi {
namespace {

constexpr int kFirstUser = 4;  // after NULL, ARE_FATAL, RETURN, ABORT

struct ErrhObj {
  ErrhKind kind;
  void (*fn)(int*, int*, ...);  // the three user function types differ only in handle type
  int refs = 1;                 // user references (create, get); 0: freed
};

std::mutex g_mu;
std::vector<ErrhObj> g_handlers;  // index h - kFirstUser
std::unordered_map<int, MPI_Errhandler> g_win_eh;
std::unordered_map<int, MPI_Errhandler> g_file_eh;
HandleCheck g_file_check = nullptr;

const char* kind_word(ErrhKind k) {
  switch (k) {
    case ErrhKind::comm: return "communicators";
    case ErrhKind::win: return "windows";
    case ErrhKind::file: return "files";
    case ErrhKind::session: return "sessions";
  }
  return "?";
}

bool predefined(MPI_Errhandler h) {
  return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT;
}

ErrhObj* user(MPI_Errhandler h) {  // lock held
  if (h < kFirstUser || h - kFirstUser >= static_cast<int>(g_handlers.size())) return nullptr;
  return &g_handlers[h - kFirstUser];
}

// A handler that may be set on an object of kind k (MPI_ERR_ARG naming it otherwise).
void check_settable(ErrhKind k, MPI_Errhandler h) {
  if (predefined(h)) return;
  std::lock_guard<std::mutex> g(g_mu);
  ErrhObj* o = user(h);
  if (!o || o->refs == 0)
    raise(MPI_ERR_ARG, "error handler " + std::to_string(h) +
                           (o ? " was freed" : " is not a valid error handler"));
  if (o->kind != k)
    raise(MPI_ERR_ARG, "error handler " + std::to_string(h) + " was created for " +
                           kind_word(o->kind) + ", not for " + kind_word(k));
}

// What Get_errhandler returns: a new reference to a user handler.
MPI_Errhandler new_reference(MPI_Errhandler h) {
  std::lock_guard<std::mutex> g(g_mu);
  if (ErrhObj* o = user(h)) ++o->refs;
  return h;
}

MPI_Errhandler create(ErrhKind k, void (*fn)(int*, int*, ...)) {
  if (!fn) raise(MPI_ERR_ARG, "the error handler function is a null pointer");
  std::lock_guard<std::mutex> g(g_mu);
  g_handlers.push_back(ErrhObj{k, fn, 1});
  return kFirstUser + static_cast<int>(g_handlers.size()) - 1;
}

// MPI_*_call_errhandler: the handler sees errorcode as if a call had failed with it.
void call_handler(ErrhKind k, int handle, MPI_Errhandler h, const char* call, int errorcode) {
  if (h == MPI_ERRORS_RETURN) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(errorcode, text, &len) != MPI_SUCCESS)
    std::snprintf(text, sizeof text, "error code %d", errorcode);
  if (predefined(h)) dispatch_error(k, handle, h, call, MPI_ERR_OTHER, text);  // ends the process
  void (*fn)(int*, int*, ...) = nullptr;
  {
    std::lock_guard<std::mutex> g(g_mu);
    if (ErrhObj* o = user(h)) fn = o->fn;
  }
  if (fn) fn(&handle, &errorcode);
}

}  // namespace

MPI_Errhandler errh_create(ErrhKind k, void (*fn)(int*, int*, ...)) { return create(k, fn); }
void errh_check_settable(ErrhKind k, MPI_Errhandler h) { check_settable(k, h); }
MPI_Errhandler errh_new_reference(MPI_Errhandler h) { return new_reference(h); }
void errh_call(ErrhKind k, int handle, MPI_Errhandler h, const char* call, int errorcode) {
  call_handler(k, handle, h, call, errorcode);
}

int dispatch_error(ErrhKind k, int handle, MPI_Errhandler h, const char* call, int cls,
                   const std::string& what) {
  (void)k;  // the handler was created for this kind (checked when it was set)
  void (*fn)(int*, int*, ...) = nullptr;
  {
    std::lock_guard<std::mutex> g(g_mu);
    if (ErrhObj* o = user(h)) fn = o->fn;
  }
  if (h == MPI_ERRORS_RETURN || fn) {
    // MPI specifies the exact value MPI_ERR_IN_STATUS (the details are in the statuses).
    int code = cls == MPI_ERR_IN_STATUS ? MPI_ERR_IN_STATUS
                                        : make_error_code(cls, std::string(call) + ": " + what);
    if (fn) {
      int obj = handle, c = code;
      fn(&obj, &c);  // MPI: the call returns the code once the handler returns
    }
    return code;
  }
  std::fprintf(stderr, "MPI error on rank %d in %s: %s\n", world_rank_or_unknown(), call,
               what.c_str());
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(1);  // like MPI_Abort(comm, 1): the launcher stops the other ranks
}

MPI_Errhandler win_errhandler(MPI_Win win) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_win_eh.find(win);
  return it == g_win_eh.end() ? MPI_ERRORS_ARE_FATAL : it->second;
}

void win_errhandler_forget(MPI_Win win) {
  std::lock_guard<std::mutex> g(g_mu);
  g_win_eh.erase(win);
}

int win_error(MPI_Win win, const char* call, int cls, const std::string& what) {
  bool valid = true;
  try {
    attr_check_handle(AttrKind::win, win);
  } catch (const MpiError&) {
    valid = false;
  }
  if (!valid) {  // no window to ask: the world's handler reports it
    CommObj* w = state().comms.get(MPI_COMM_WORLD);
    return dispatch_error(ErrhKind::comm, MPI_COMM_WORLD,
                          w ? w->errhandler : MPI_ERRORS_ARE_FATAL, call, cls, what);
  }
  return dispatch_error(ErrhKind::win, win, win_errhandler(win), call, cls, what);
}

int win_fail_current(const char* call, MPI_Win win) {
  auto [cls, what] = current_error(call);
  return win_error(win, call, cls, what);
}

void file_register_check(HandleCheck check) { g_file_check = check; }

static void check_file(MPI_File file) {
  if (file == MPI_FILE_NULL) return;  // holds the default handler of file errors
  if (g_file_check) return g_file_check(file);
  raise(MPI_ERR_FILE, "file " + std::to_string(file) + " is not valid (MPI-IO is not provided)");
}

MPI_Errhandler file_errhandler(MPI_File file) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_file_eh.find(file);
  if (it != g_file_eh.end()) return it->second;
  if (file != MPI_FILE_NULL) {  // a new file starts with MPI_FILE_NULL's handler
    auto n = g_file_eh.find(MPI_FILE_NULL);
    if (n != g_file_eh.end()) return n->second;
  }
  return MPI_ERRORS_RETURN;
}

void file_errhandler_forget(MPI_File file) {
  std::lock_guard<std::mutex> g(g_mu);
  if (file != MPI_FILE_NULL) g_file_eh.erase(file);
}

int file_fail_current(const char* call, MPI_File file) {
  auto [cls, what] = current_error(call);
  return dispatch_error(ErrhKind::file, file, file_errhandler(file), call, cls, what);
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* comm_errhandler_fn,
                               MPI_Errhandler* errhandler) {
  return guard("MPI_Comm_create_errhandler", MPI_COMM_NULL, [&] {
    need(errhandler, "errhandler");
    *errhandler = create(ErrhKind::comm, comm_errhandler_fn);
  });
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return guard("MPI_Comm_set_errhandler", comm, [&] {
    CommObj& c = comm_obj(comm);
    check_settable(ErrhKind::comm, errhandler);
    c.errhandler = errhandler;
  });
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return MPI_Comm_set_errhandler(comm, errhandler);
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return guard("MPI_Comm_get_errhandler", comm, [&] {
    CommObj& c = comm_obj(comm);
    need(errhandler, "errhandler");
    *errhandler = new_reference(c.errhandler);
  });
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return MPI_Comm_get_errhandler(comm, errhandler);
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  return guard("MPI_Comm_call_errhandler", comm, [&] {
    MPI_Errhandler h = comm_obj(comm).errhandler;
    call_handler(ErrhKind::comm, comm, h, "MPI_Comm_call_errhandler", errorcode);
  });
}

// Open MPI and MPICH accept freeing a predefined handler (the save/restore/free idiom
// relies on it), and so does MPI 4.1.
int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  return guard("MPI_Errhandler_free", MPI_COMM_NULL, [&] {
    need(errhandler, "errhandler");
    if (!predefined(*errhandler)) {
      std::lock_guard<std::mutex> g(g_mu);
      ErrhObj* o = user(*errhandler);
      if (!o) raise(MPI_ERR_ARG, "error handler " + std::to_string(*errhandler) + " is not valid");
      if (o->refs == 0)
        raise(MPI_ERR_ARG, "error handler " + std::to_string(*errhandler) + " was already freed");
      --o->refs;
    }
    *errhandler = MPI_ERRHANDLER_NULL;
  });
}

int MPI_Win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn,
                              MPI_Errhandler* errhandler) {
  return guard("MPI_Win_create_errhandler", MPI_COMM_NULL, [&] {
    need(errhandler, "errhandler");
    *errhandler = create(ErrhKind::win, win_errhandler_fn);
  });
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  return win_guard("MPI_Win_set_errhandler", win, [&] {
    attr_check_handle(AttrKind::win, win);
    check_settable(ErrhKind::win, errhandler);
    std::lock_guard<std::mutex> g(g_mu);
    g_win_eh[win] = errhandler;
  });
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  return win_guard("MPI_Win_get_errhandler", win, [&] {
    attr_check_handle(AttrKind::win, win);
    need(errhandler, "errhandler");
    *errhandler = new_reference(win_errhandler(win));
  });
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  return win_guard("MPI_Win_call_errhandler", win, [&] {
    attr_check_handle(AttrKind::win, win);
    call_handler(ErrhKind::win, win, win_errhandler(win), "MPI_Win_call_errhandler", errorcode);
  });
}

int MPI_File_create_errhandler(MPI_File_errhandler_function* file_errhandler_fn,
                               MPI_Errhandler* errhandler) {
  return guard("MPI_File_create_errhandler", MPI_COMM_NULL, [&] {
    need(errhandler, "errhandler");
    *errhandler = create(ErrhKind::file, file_errhandler_fn);
  });
}

int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  return file_guard("MPI_File_set_errhandler", file, [&] {
    check_file(file);
    check_settable(ErrhKind::file, errhandler);
    std::lock_guard<std::mutex> g(g_mu);
    g_file_eh[file] = errhandler;
  });
}

int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  return file_guard("MPI_File_get_errhandler", file, [&] {
    check_file(file);
    need(errhandler, "errhandler");
    *errhandler = new_reference(file_errhandler(file));
  });
}

int MPI_File_call_errhandler(MPI_File fh, int errorcode) {
  return file_guard("MPI_File_call_errhandler", fh, [&] {
    check_file(fh);
    call_handler(ErrhKind::file, fh, file_errhandler(fh), "MPI_File_call_errhandler", errorcode);
  });
}

}  // extern "C"
