// interlace._core.TaskExecutor: the task runtime (include/interlace/task/task.hpp)
// running Python callables. interlace/tasks.py builds the user API on top.
//  - A body runs on a worker thread and takes the GIL only while it runs Python; every
//    call here that may wait (spawn, taskwait, close) releases the GIL first, so task
//    bodies and other Python threads progress meanwhile, and no thread ever holds the
//    GIL while it waits for the executor's locks (the other order is the one bodies use).
//  - A dependency is a buffer-protocol object (its memory: for a strided view the
//    covering range from its lowest to its highest byte) or an (address, nbytes) pair.
//  - A Python exception leaves the body as a PythonTaskError whose message names it;
//    the exception object waits in a table until the taskwait that reports it raises
//    the same object again (type, message and traceback kept).
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "interlace/core/error.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/task/task.hpp"

namespace nb = nanobind;

namespace interlace::python {

namespace {

using task::Access;
using task::Dep;
using task::Executor;

// Failed bodies' exception objects by id; only touched with the GIL held. Never freed:
// it may outlive the interpreter (a static destructor must not DECREF).
std::unordered_map<uint64_t, PyObject*>& pending_exceptions() {
  static auto* table = new std::unordered_map<uint64_t, PyObject*>;
  return *table;
}
uint64_t next_exception_id = 0;
constexpr const char* kMarker = " [python exception #";

class PythonTaskError : public Error {
 public:
  PythonTaskError(uint64_t id, const std::string& what)
      : Error(Errc::internal, what + kMarker + std::to_string(id) + "]"), id(id) {}
  uint64_t id;
};

// The Python side of one task: the callable and the buffers its Deps point into,
// exported until the body has run so that e.g. a bytearray cannot resize under it.
struct PyCall {
  nb::object fn;
  std::vector<Py_buffer> views;
  PyCall() = default;
  PyCall(const PyCall&) = delete;
  PyCall& operator=(const PyCall&) = delete;
  void clear() noexcept {  // GIL held
    for (Py_buffer& v : views) PyBuffer_Release(&v);
    views.clear();
    fn.reset();
  }
  // A cancelled task's body never runs: its references go here, on whichever thread
  // drops the task. After interpreter shutdown they are leaked, not released.
  ~PyCall() {
    if ((!fn.is_valid() && views.empty()) || !Py_IsInitialized()) {
      if (fn.is_valid()) (void)fn.release();
      return;
    }
    nb::gil_scoped_acquire gil;
    clear();
  }
};

Access access_arg(const std::string& name, const std::string& what) {
  static const std::pair<const char*, Access> names[] = {
      {"in", Access::in}, {"out", Access::out}, {"inout", Access::inout},
      {"commutative", Access::commutative}, {"concurrent", Access::concurrent}};
  for (const auto& [n, a] : names)
    if (name == n) return a;
  throw nb::value_error((what + ": access '" + name +
                         "' is not one of in, out, inout, commutative, concurrent").c_str());
}

// The bytes a buffer's elements occupy, lowest to highest (negative strides included).
Dep covering_dep(const Py_buffer& v, Access access) {
  const char* base = static_cast<const char*>(v.buf);
  if (v.len == 0) return {base, 0, access};
  if (!v.strides) return {base, static_cast<size_t>(v.len), access};
  Py_ssize_t lo = 0, hi = 0;
  for (int i = 0; i < v.ndim; ++i) {
    const Py_ssize_t span = (v.shape[i] - 1) * v.strides[i];
    (span < 0 ? lo : hi) += span;
  }
  return {base + lo, static_cast<size_t>(hi - lo + v.itemsize), access};
}

// deps: a sequence of (access, target, what); `what` names the argument in messages.
std::vector<Dep> parse_deps(nb::handle deps, std::vector<Py_buffer>* views) {
  std::vector<Dep> out;
  for (nb::handle item : deps) {
    nb::tuple t = nb::cast<nb::tuple>(item);
    if (t.size() != 3) throw nb::value_error("task dependency: expected (access, target, what)");
    const std::string what = nb::cast<std::string>(t[2]);
    const Access access = access_arg(nb::cast<std::string>(t[0]), what);
    nb::handle target = t[1];
    if (nb::isinstance<nb::tuple>(target)) {  // an explicit (address, nbytes) region
      nb::tuple r = nb::borrow<nb::tuple>(target);
      long long addr = 0, bytes = 0;
      if (r.size() != 2 || !nb::try_cast(r[0], addr) || !nb::try_cast(r[1], bytes))
        throw nb::type_error((what + ": a region is (address, nbytes) as two ints, got " +
                              nb::cast<std::string>(nb::repr(target))).c_str());
      if (addr < 0)
        throw Error(Errc::invalid_argument, what + ": negative address " + std::to_string(addr));
      out.push_back(task::make_dep(reinterpret_cast<const void*>(static_cast<uintptr_t>(addr)),
                                   bytes, access));
      continue;
    }
    if (!PyObject_CheckBuffer(target.ptr()))
      throw nb::type_error((what + " is declared " + task::access_name(access) + " but a " +
                            Py_TYPE(target.ptr())->tp_name +
                            " is not an array or buffer (nor an (address, nbytes) region)").c_str());
    const bool writes = access != Access::in;
    Py_buffer v{};
    if (PyObject_GetBuffer(target.ptr(), &v, PyBUF_STRIDES | (writes ? PyBUF_WRITABLE : 0)) != 0) {
      PyErr_Clear();
      if (writes && PyObject_GetBuffer(target.ptr(), &v, PyBUF_STRIDES) == 0) {
        PyBuffer_Release(&v);
        throw nb::value_error((what + " is declared " + task::access_name(access) + " but its " +
                               Py_TYPE(target.ptr())->tp_name + " buffer is read-only").c_str());
      }
      throw nb::type_error((what + ": cannot read the memory of a " +
                            Py_TYPE(target.ptr())->tp_name + " (suboffsets?)").c_str());
    }
    out.push_back(covering_dep(v, access));
    if (views) {
      views->push_back(v);
    } else {
      PyBuffer_Release(&v);
    }
  }
  return out;
}

// Raises err in Python: a body's exception as itself, the rest through nanobind's
// translators (interlace::Error becomes interlace.Error and its subclasses).
[[noreturn]] void rethrow_python(std::exception_ptr err) {
  uint64_t id = UINT64_MAX;
  try {
    std::rethrow_exception(err);
  } catch (const PythonTaskError& e) {
    id = e.id;
  } catch (const std::exception& e) {
    // An executor that wraps the exception keeps its message, and with it the id.
    const std::string what = e.what();
    const size_t at = what.find(kMarker);
    if (at == std::string::npos) throw;
    id = std::stoull(what.substr(at + std::string(kMarker).size()));
  }
  auto& table = pending_exceptions();
  auto it = table.find(id);
  if (it == table.end()) std::rethrow_exception(err);
  PyObject* exc = it->second;
  table.erase(it);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
  Py_DECREF(exc);
  throw nb::python_error();
}

template <class F>
void without_gil(F&& f) {
  std::exception_ptr err;
  {
    nb::gil_scoped_release unlocked;
    try {
      f();
    } catch (...) {
      err = std::current_exception();
    }
  }
  if (err) rethrow_python(err);
}

std::function<void()> make_body(std::shared_ptr<PyCall> call) {
  return [call = std::move(call)] {
    if (!Py_IsInitialized()) return;  // the interpreter is gone: nothing to run
    nb::gil_scoped_acquire gil;
    try {
      call->fn();
    } catch (nb::python_error& e) {
      nb::handle exc = e.value();
      std::string text = Py_TYPE(exc.ptr())->tp_name;
      try {
        text += ": " + nb::cast<std::string>(nb::str(exc));
      } catch (...) {  // an unprintable exception still reports its type
      }
      const uint64_t id = next_exception_id++;
      pending_exceptions()[id] = nb::borrow(exc).release().ptr();
      call->clear();
      throw PythonTaskError(id, "task body raised " + text);
    }
    call->clear();
  };
}

// An Executor owned by Python, or the process's (never destroyed).
struct PyExecutor {
  std::unique_ptr<Executor> owned;
  Executor* ex = nullptr;

  Executor& get() const {
    if (!ex) throw Error(Errc::finalized, "TaskExecutor: used after close()");
    return *ex;
  }
  void close() {
    if (!owned) return;
    if (Executor::current() == ex)
      throw Error(Errc::invalid_argument, "TaskExecutor.close: called from one of its own tasks");
    ex = nullptr;
    without_gil([&] { owned.reset(); });  // waits for its tasks, which need the GIL
  }
  ~PyExecutor() {
    if (owned) {
      ex = nullptr;
      nb::gil_scoped_release unlocked;
      owned.reset();
    }
  }
};

}  // namespace

void bind_task(nb::module_& m) {
  nb::class_<PyExecutor>(m, "TaskExecutor",
                         "A pool of task workers (interlace::task::Executor) running Python "
                         "callables ordered by declared dependencies; interlace.tasks wraps it.")
      .def(
          "__init__",
          [](PyExecutor* self, int workers, Runtime* runtime) {
            if (workers < 0)
              throw nb::value_error(("TaskExecutor: workers must be >= 0 (0: the default), got " +
                                     std::to_string(workers)).c_str());
            task::Options opts;
            opts.workers = workers;
            opts.runtime = runtime;
            new (self) PyExecutor();
            nb::gil_scoped_release unlocked;  // starting a progress thread may wait
            self->owned = std::make_unique<Executor>(opts);
            self->ex = self->owned.get();
          },
          nb::arg("workers") = 0, nb::arg("runtime").none() = nb::none(),
          "workers=0 takes INTERLACE_TASK_WORKERS, else the cores this process may use; "
          "runtime: start its progress thread so that tasks may communicate concurrently.")
      .def_prop_ro("workers", [](const PyExecutor& s) { return s.get().workers(); })
      .def_prop_ro("closed", [](const PyExecutor& s) { return s.ex == nullptr; })
      .def(
          "stats",
          [](const PyExecutor& s) {
            const task::Stats st = s.get().stats();
            nb::dict d;
            d["spawned"] = st.spawned;
            d["executed"] = st.executed;
            d["cancelled"] = st.cancelled;
            d["blocked"] = st.blocked;
            d["threads"] = st.threads;
            return d;
          },
          "Counters: spawned, executed, cancelled, blocked (waits that lent a core), threads.")
      .def(
          "spawn",
          [](PyExecutor& s, nb::object fn, nb::handle deps, int priority) {
            Executor& ex = s.get();
            if (!PyCallable_Check(fn.ptr()))
              throw nb::type_error((std::string("spawn: the task body must be callable, got a ") +
                                    Py_TYPE(fn.ptr())->tp_name).c_str());
            auto call = std::make_shared<PyCall>();
            call->fn = std::move(fn);
            const std::vector<Dep> ds = parse_deps(deps, &call->views);
            task::SpawnOptions so;
            so.priority = priority;
            std::function<void()> body = make_body(call);
            // `call` stays referenced here until the GIL is back: if the task has
            // already finished, its last reference drops with the GIL held.
            without_gil([&] { ex.spawn(std::span<const Dep>(ds), std::move(body), so); });
          },
          nb::arg("body"), nb::arg("deps"), nb::arg("priority") = 0,
          "Runs body() as a task once the earlier sibling tasks it conflicts with are done. "
          "deps: (access, target, what) triples; target is a buffer or (address, nbytes).")
      .def(
          "taskwait", [](PyExecutor& s) { without_gil([&] { s.get().taskwait(); }); },
          "Waits for the calling task's children (at top level, for the top-level tasks) and "
          "raises the first exception one of them raised.")
      .def(
          "taskwait_on",
          [](PyExecutor& s, nb::handle deps) {
            Executor& ex = s.get();
            const std::vector<Dep> ds = parse_deps(deps, nullptr);
            without_gil([&] { ex.taskwait_on(std::span<const Dep>(ds)); });
          },
          nb::arg("deps"), "Waits for the earlier sibling tasks whose accesses conflict with deps.")
      .def("close", &PyExecutor::close,
           "Waits for every task, then stops the workers (no-op for the process executor).");

  // Module functions, not static methods: the stub checks treat those alike.
  m.def(
      "task_process_executor",
      [] {
        auto* p = new PyExecutor();
        p->ex = &task::process_executor();
        return p;
      },
      nb::rv_policy::take_ownership,
      "A TaskExecutor handle on the process's shared executor (the C API and OMPIF use it too).");
  m.def("task_in_task", &Executor::in_task, "Whether the calling thread runs a task body.");

  m.def("task_default_workers", &task::default_workers,
        "Workers an executor with workers=0 gets (INTERLACE_TASK_WORKERS, else the usable cores).");
}

}  // namespace interlace::python
