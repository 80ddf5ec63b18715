// interlace._core.DistSession: distributed tasks (include/interlace/task/distributed.hpp)
// for interlace.tasks.Session. Python needs one device function only: "interlace.python"
// hands the device-local regions (as writable memoryviews) and the host's argument
// bytes to a Python dispatcher, which unpickles the function and the arrays' types.
// Every call that waits or communicates releases the GIL; the device function takes it.
#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "interlace/core/error.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/task/distributed.hpp"

namespace nb = nanobind;

namespace interlace::python {

namespace {

using task::dist::Clause;
using task::dist::ClauseKind;
using task::dist::Session;

constexpr const char* kFunction = "interlace.python";
PyObject* dispatcher = nullptr;  // interlace.tasks._run_on_device, set by register

ClauseKind kind_arg(const std::string& k) {
  static const std::pair<const char*, ClauseKind> names[] = {
      {"broadcast", ClauseKind::broadcast}, {"scatter", ClauseKind::scatter},
      {"gather", ClauseKind::gather}, {"send", ClauseKind::send}, {"receive", ClauseKind::receive}};
  for (const auto& [n, v] : names)
    if (k == n) return v;
  throw nb::value_error(("distributed spawn: clause '" + k +
                         "' is not one of broadcast, scatter, gather, send, receive").c_str());
}

// clauses: (kind, buffer, device, what) per clause; the host's buffers must be
// contiguous (they travel as bytes).
std::vector<Clause> parse_clauses(nb::handle clauses) {
  std::vector<Clause> out;
  for (nb::handle item : clauses) {
    nb::tuple t = nb::cast<nb::tuple>(item);
    const ClauseKind kind = kind_arg(nb::cast<std::string>(t[0]));
    const std::string what = nb::cast<std::string>(t[3]);
    const bool writes = kind == ClauseKind::gather || kind == ClauseKind::receive;
    Py_buffer v{};
    if (PyObject_GetBuffer(t[1].ptr(), &v, PyBUF_ANY_CONTIGUOUS | (writes ? PyBUF_WRITABLE : 0)) != 0) {
      PyErr_Clear();
      throw nb::value_error((what + ": needs a contiguous" + (writes ? ", writable" : "") +
                             " array or buffer, got a " + Py_TYPE(t[1].ptr())->tp_name).c_str());
    }
    Clause c{kind, v.buf, static_cast<uint64_t>(v.len), nb::cast<int>(t[2])};
    PyBuffer_Release(&v);  // interlace.tasks.Session keeps the objects until taskwait
    out.push_back(c);
  }
  return out;
}

template <class F>
auto unlocked(F&& f) {
  nb::gil_scoped_release released;
  return f();
}

void run_python(const task::dist::DeviceCall& call) {
  if (!Py_IsInitialized()) return;
  nb::gil_scoped_acquire gil;
  if (!dispatcher) throw Error(Errc::internal, "interlace.python device function: no dispatcher");
  nb::list regions;
  for (size_t i = 0; i < call.regions.size(); ++i) {
    if (!call.regions[i]) {
      regions.append(nb::none());
      continue;
    }
    regions.append(nb::steal(PyMemoryView_FromMemory(static_cast<char*>(call.regions[i]),
                                                     static_cast<Py_ssize_t>(call.sizes[i]),
                                                     PyBUF_WRITE)));
  }
  nb::bytes args(reinterpret_cast<const char*>(call.args.data()), call.args.size());
  try {
    nb::handle d(dispatcher);
    d(regions, args, call.device, call.num_devices);
  } catch (nb::python_error& e) {
    // The host learns of it by name and message (the device's exception stays here).
    std::string text = Py_TYPE(e.value().ptr())->tp_name;
    try {
      text += ": " + nb::cast<std::string>(nb::str(e.value()));
    } catch (...) {
    }
    throw Error(Errc::internal, "Python device task raised " + text);
  }
}

}  // namespace

void bind_task_dist(nb::module_& m) {
  m.def(
      "dist_register",
      [](nb::object fn) {
        static bool registered = false;
        if (!registered) task::dist::register_function(kFunction, &run_python);
        registered = true;
        Py_XDECREF(dispatcher);
        dispatcher = fn.is_none() ? nullptr : fn.release().ptr();
      },
      nb::arg("dispatcher").none(),
      "Registers dispatcher(regions, args, device, num_devices) as the device function "
      "interlace.tasks runs (every rank, before the host spawns); None drops it (at exit, "
      "so that it does not keep the package alive past the interpreter).");

  nb::class_<Session>(m, "DistSession",
                      "A host and its devices (interlace::task::dist::Session); "
                      "interlace.tasks.Session wraps it.")
      .def(
          "__init__",
          [](Session* self, Runtime& rt, int host_rank) {
            nb::gil_scoped_release released;  // collective over the world
            new (self) Session(rt, nullptr, host_rank);
          },
          nb::arg("runtime"), nb::arg("host_rank") = -1,
          "Collective over the runtime's world; host_rank < 0 takes INTERLACE_TASK_HOST (default 0).")
      .def_prop_ro("is_host", &Session::is_host)
      .def_prop_ro("host_rank", &Session::host_rank)
      .def_prop_ro("num_devices", &Session::num_devices)
      .def_prop_ro("device_index", &Session::device_index)
      .def("device_world_rank", &Session::device_world_rank, nb::arg("device"))
      .def("devices", &Session::devices, "The devices' communicator (null on the host).")
      .def(
          "spawn",
          [](Session& s, nb::handle clauses, nb::bytes args) {
            const std::vector<Clause> cs = parse_clauses(clauses);
            std::string bytes(args.c_str(), args.size());
            unlocked([&] {
              s.spawn(kFunction, std::span<const Clause>(cs),
                      std::as_bytes(std::span<const char>(bytes.data(), bytes.size())));
            });
          },
          nb::arg("clauses"), nb::arg("args"),
          "Host: runs the Python device function on every device; clauses are "
          "(kind, buffer, device, what).")
      .def("taskwait", [](Session& s) { unlocked([&] { s.executor().taskwait(); }); },
           "Waits for the distributed tasks (the session executor's top-level tasks).")
      .def("finish", [](Session& s) { unlocked([&] { s.finish(); }); },
           "Host: releases the devices (their serve() returns). Idempotent.")
      .def("serve", [](Session& s) { unlocked([&] { s.serve(); }); },
           "Device: runs the host's commands until it finishes.");
}

}  // namespace interlace::python
