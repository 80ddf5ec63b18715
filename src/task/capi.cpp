// The C API (interlace/tasks.h) over process_executor().
#include <string>
#include <vector>

#include "interlace/core/error.hpp"
#include "interlace/task/task.hpp"
#include "interlace/tasks.h"

namespace {

using namespace interlace;
using namespace interlace::task;

thread_local std::string t_last_error;

int fail(Errc code, const std::string& msg) {
  t_last_error = msg;
  return static_cast<int>(code);
}

// Every exception becomes a code and a message; nothing crosses into C.
template <class F>
int guarded(F&& f) {
  try {
    f();
    return IL_TASK_OK;
  } catch (const Error& e) {
    return fail(e.code(), e.what());
  } catch (const std::exception& e) {
    return fail(Errc::internal, e.what());
  } catch (...) {
    return fail(Errc::internal, "a task failed with a non-standard exception");
  }
}

// Converts into `out` (cleared first); callers keep it per thread, so a spawn from C
// allocates nothing once it has seen its largest dependency count.
void convert(const char* call, const il_task_dep_t* deps, int ndeps, std::vector<Dep>& out) {
  if (ndeps < 0)
    throw_error(Errc::invalid_argument, std::string(call) + ": ndeps " + std::to_string(ndeps) +
                                            " is negative");
  if (ndeps > 0 && !deps)
    throw_error(Errc::invalid_argument, std::string(call) + ": deps is null but ndeps is " +
                                            std::to_string(ndeps));
  out.clear();
  for (int i = 0; i < ndeps; ++i) {
    const int a = static_cast<int>(deps[i].access);
    if (a < IL_TASK_IN || a > IL_TASK_CONCURRENT)
      throw_error(Errc::invalid_argument, std::string(call) + ": deps[" + std::to_string(i) +
                                              "].access " + std::to_string(a) +
                                              " is not an il_task_access_t");
    try {
      out.push_back(make_dep(deps[i].addr, deps[i].bytes, static_cast<Access>(a)));
    } catch (const Error& e) {
      throw_error(e.code(), std::string(call) + ": deps[" + std::to_string(i) + "]: " + e.what());
    }
  }
}

thread_local std::vector<Dep> t_deps;

}  // namespace

extern "C" {

int il_task_spawn(void (*fn)(void*), void* arg, const il_task_dep_t* deps, int ndeps,
                  int priority) {
  return guarded([&] {
    if (!fn) throw_error(Errc::invalid_argument, "il_task_spawn: fn is null");
    convert("il_task_spawn", deps, ndeps, t_deps);
    process_executor().spawn(t_deps, [fn, arg] { fn(arg); }, SpawnOptions{priority, nullptr});
  });
}

int il_task_wait(void) {
  return guarded([] { process_executor().taskwait(); });
}

int il_task_wait_on(const il_task_dep_t* deps, int ndeps) {
  return guarded([&] {
    // Its own vector: a taskwait may run tasks on this thread that spawn from C.
    std::vector<Dep> d;
    convert("il_task_wait_on", deps, ndeps, d);
    process_executor().taskwait_on(d);
  });
}

int il_task_workers(void) {
  int n = 0;
  if (guarded([&] { n = process_executor().workers(); }) != IL_TASK_OK) return -1;
  return n;
}

const char* il_task_last_error(void) { return t_last_error.c_str(); }

}  // extern "C"
