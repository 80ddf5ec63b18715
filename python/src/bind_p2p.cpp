// interlace._core p2p basics: error codes and the translation of C++
// interlace::Error into the Python exception classes of interlace.errors,
// Status, the wildcard constants and the per-process Runtime.
#include <string>

#include <nanobind/stl/string.h>

#include "bind_p2p_support.hpp"
#include "bindings.hpp"

namespace interlace::python {

namespace {

// The Python classes live in interlace/errors.py so they can inherit from both
// RuntimeError and ValueError/TimeoutError; look the factory up on first use
// (the translator runs long after import, with the package fully loaded).
void raise_as_python(Errc code, const char* what) {
  static PyObject* factory = nullptr;
  if (!factory) {
    try {
      nb::object f = nb::module_::import_("interlace.errors").attr("_from_core");
      factory = f.release().ptr();
    } catch (nb::python_error&) {
      // _core imported on its own, outside the package: plain RuntimeError.
      PyErr_SetString(PyExc_RuntimeError, what);
      return;
    }
  }
  PyObject* exc = PyObject_CallFunction(factory, "is", static_cast<int>(code), what);
  if (!exc) return;  // the factory failed; its exception is already set
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
  Py_DECREF(exc);
}

size_t count_in(const Status& s, nb::handle dt) {
  if (dt.is_none()) return s.bytes;
  const size_t es = datatype_size(datatype_arg(dt));
  return s.bytes / es;
}

std::string status_repr(const Status& s) {
  return "Status(source=" + std::to_string(s.source) + ", tag=" + std::to_string(s.tag) +
         ", count=" + std::to_string(s.bytes) + ", error=" + errc_name(s.error) +
         (s.cancelled ? ", cancelled=True)" : ")");
}

}  // namespace

Status* status_arg(nb::handle out) {
  if (out.is_none()) return nullptr;
  Status* p = nullptr;
  if (!nb::try_cast<Status*>(out, p) || !p)
    throw nb::type_error((std::string("status must be an interlace.Status or None, got ") +
                          Py_TYPE(out.ptr())->tp_name).c_str());
  return p;
}

void fill_status(nb::handle out, const Status& st) {
  if (Status* p = status_arg(out)) *p = st;
}

void bind_p2p(nb::module_& m) {
  nb::enum_<Errc> codes(m, "ErrorCode", nb::is_arithmetic(),
                        "Error codes of interlace::Errc (interlace/core/error.hpp).");
  for (int i = 0; i <= static_cast<int>(Errc::internal); ++i)
    codes.value(errc_name(static_cast<Errc>(i)), static_cast<Errc>(i));

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      raise_as_python(e.code(), e.what());
    }
  });

  m.attr("ANY_SOURCE") = ANY_SOURCE;
  m.attr("ANY_TAG") = ANY_TAG;
  m.attr("PROC_NULL") = PROC_NULL;
  m.attr("UNDEFINED") = UNDEFINED;
  m.attr("TAG_UB") = kTagUpperBound;

  nb::class_<Status>(m, "Status", "Outcome of a receive or probe: who sent, which tag, how much.")
      .def(nb::init<>())
      .def_rw("source", &Status::source)
      .def_rw("tag", &Status::tag)
      .def_rw("error", &Status::error)
      .def_rw("cancelled", &Status::cancelled)
      .def_rw("count", &Status::bytes, "Bytes received.")
      .def("Get_source", [](const Status& s) { return s.source; })
      .def("Get_tag", [](const Status& s) { return s.tag; })
      .def("Get_error", [](const Status& s) { return s.error; })
      .def("Get_count", &count_in, nb::arg("datatype") = nb::none(),
           "Elements of `datatype` received (bytes when None).")
      .def("Get_elements", &count_in, nb::arg("datatype"))
      .def("Is_cancelled", [](const Status& s) { return s.cancelled; })
      .def("__repr__", &status_repr);

  nb::class_<Runtime>(m, "Runtime", "One per process: the engine context and p2p state.")
      .def_static("init", [] {
        nb::gil_scoped_release unlocked;  // connecting to peers may take a while
        return Runtime::init();
      })
      .def("world", &Runtime::world)
      .def("self", &Runtime::self)
      .def("finalize", [](Runtime& r) {
        nb::gil_scoped_release unlocked;  // drains outgoing traffic
        r.finalize();
      })
      .def_prop_ro("finalized", &Runtime::finalized);
}

}  // namespace interlace::python
