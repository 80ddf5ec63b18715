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

std::vector<Dep> convert(const char* call, const il_task_dep_t* deps, int ndeps) {
  if (ndeps < 0)
    throw_error(Errc::invalid_argument, std::string(call) + ": ndeps " + std::to_string(ndeps) +
                                            " is negative");
  if (ndeps > 0 && !deps)
    throw_error(Errc::invalid_argument, std::string(call) + ": deps is null but ndeps is " +
                                            std::to_string(ndeps));
  std::vector<Dep> out;
  out.reserve(static_cast<size_t>(ndeps));
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
  return out;
}

}  // namespace

extern "C" {

int il_task_spawn(void (*fn)(void*), void* arg, const il_task_dep_t* deps, int ndeps,
                  int priority) {
  return guarded([&] {
    if (!fn) throw_error(Errc::invalid_argument, "il_task_spawn: fn is null");
    std::vector<Dep> d = convert("il_task_spawn", deps, ndeps);
    process_executor().spawn(d, [fn, arg] { fn(arg); }, SpawnOptions{priority, nullptr});
  });
}

int il_task_wait(void) {
  return guarded([] { process_executor().taskwait(); });
}

int il_task_wait_on(const il_task_dep_t* deps, int ndeps) {
  return guarded([&] {
    std::vector<Dep> d = convert("il_task_wait_on", deps, ndeps);
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
