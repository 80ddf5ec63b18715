// interlace._core.BcastChannel / ReduceChannel / ScatterChannel / GatherChannel: the
// SMI streaming collectives for Python. Elements cross as bytes of one element;
// interlace/stream.py converts them to and from Python numbers. Every call that may
// block releases the GIL.
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bind_p2p_support.hpp"
#include "bindings.hpp"
#include "interlace/stream/collectives.hpp"
#include "smi.h"

namespace interlace::python {

namespace {

using namespace stream;

size_t degree_of(nb::handle degree, Datatype dt, size_t dflt_elems) {
  if (degree.is_none()) return dflt_elems ? dflt_elems : std::max<size_t>(1, SMI_DEFAULT_DEGREE_BYTES / datatype_size(dt));
  long long k;
  if (!nb::try_cast<long long>(degree, k))
    throw nb::type_error(("degree must be an int or None, got " + std::string(Py_TYPE(degree.ptr())->tp_name)).c_str());
  if (k < 0) throw nb::value_error(("degree " + std::to_string(k) + " is negative").c_str());
  return static_cast<size_t>(k);
}

size_t count_of(long long count) {
  if (count < 0) throw nb::value_error(("count " + std::to_string(count) + " is negative").c_str());
  return static_cast<size_t>(count);
}

ReduceOp op_of(nb::handle op) {
  if (nb::isinstance<nb::str>(op)) {
    const std::string name = nb::cast<std::string>(op);
    if (auto o = reduce_op_from_name(name)) return *o;
    throw nb::value_error(("unknown reduce op '" + name + "'").c_str());
  }
  ReduceOp o;
  if (nb::try_cast<ReduceOp>(op, o)) return o;
  throw nb::type_error(("op must be a ReduceOp or its name, got " + nb::cast<std::string>(nb::repr(op))).c_str());
}

// The element's bytes, checked against the channel's element size.
const void* elem_in(nb::handle b, Datatype dt, const char* what) {
  if (b.is_none()) return nullptr;
  if (!nb::isinstance<nb::bytes>(b)) throw nb::type_error((std::string(what) + " must be bytes").c_str());
  nb::bytes by = nb::borrow<nb::bytes>(b);
  if (by.size() != datatype_size(dt))
    throw nb::value_error((std::string(what) + " has " + std::to_string(by.size()) + " bytes, a " +
                           std::string(datatype_name(dt)) + " element has " + std::to_string(datatype_size(dt)))
                              .c_str());
  return by.c_str();
}

nb::bytes out(const unsigned char* e, Datatype dt) {
  return nb::bytes(reinterpret_cast<const char*>(e), datatype_size(dt));
}


}  // namespace

void bind_stream_coll(nb::module_& m) {
  m.attr("REDUCE_DEFAULT_TILE") = kReduceDefaultTile;

  struct Bc { BcastChannel ch; Datatype dt; };
  nb::class_<Bc>(m, "_BcastChannel")
      .def("__init__",
           [](Bc* self, const Communicator& comm, long long count, nb::handle dtype, long long port,
              long long root, nb::handle degree) {
             const Datatype dt = datatype_arg(dtype);
             const size_t n = count_of(count), k = degree_of(degree, dt, 0);
             const int p = int_arg(port, "port"), r = int_arg(root, "root");
             nb::gil_scoped_release unlocked;
             new (self) Bc{BcastChannel(comm, n, dt, p, r, k), dt};
           },
           nb::arg("comm"), nb::arg("count"), nb::arg("dtype"), nb::arg("port"), nb::arg("root"),
           nb::arg("degree") = nb::none(), nb::keep_alive<1, 2>())
      .def("_bcast", [](Bc& b, nb::handle v) {
        unsigned char e[8] = {};
        if (b.ch.is_root()) {
          const void* in = elem_in(v, b.dt, "the root's element");
          if (!in) throw nb::value_error("bcast at the root needs a value");
          std::memcpy(e, in, datatype_size(b.dt));
        }
        {
          nb::gil_scoped_release unlocked;
          b.ch.bcast(e);
        }
        return out(e, b.dt);
      }, nb::arg("value").none())
      .def_prop_ro("count", [](const Bc& b) { return b.ch.count(); })
      .def_prop_ro("remaining", [](const Bc& b) { return b.ch.remaining(); })
      .def_prop_ro("is_root", [](const Bc& b) { return b.ch.is_root(); })
      .def_prop_ro("dtype", [](const Bc& b) { return b.dt; });

  struct Rc { ReduceChannel ch; Datatype dt; };
  nb::class_<Rc>(m, "_ReduceChannel")
      .def("__init__",
           [](Rc* self, const Communicator& comm, long long count, nb::handle dtype, nb::handle op,
              long long port, long long root, nb::handle tile) {
             const Datatype dt = datatype_arg(dtype);
             const ReduceOp o = op_of(op);
             const size_t n = count_of(count), k = degree_of(tile, dt, kReduceDefaultTile);
             const int p = int_arg(port, "port"), r = int_arg(root, "root");
             nb::gil_scoped_release unlocked;
             new (self) Rc{ReduceChannel(comm, n, dt, o, p, r, k), dt};
           },
           nb::arg("comm"), nb::arg("count"), nb::arg("dtype"), nb::arg("op"), nb::arg("port"),
           nb::arg("root"), nb::arg("tile") = nb::none(), nb::keep_alive<1, 2>())
      .def("_reduce", [](Rc& c, nb::handle v) -> nb::object {
        const void* in = elem_in(v, c.dt, "the contribution");
        if (!in) throw nb::value_error("reduce needs a value on every rank");
        unsigned char s[8] = {}, e[8] = {};
        std::memcpy(s, in, datatype_size(c.dt));
        {
          nb::gil_scoped_release unlocked;
          c.ch.reduce(s, e);
        }
        return c.ch.is_root() ? nb::object(out(e, c.dt)) : nb::none();
      }, nb::arg("value").none())
      .def_prop_ro("count", [](const Rc& c) { return c.ch.count(); })
      .def_prop_ro("remaining", [](const Rc& c) { return c.ch.remaining(); })
      .def_prop_ro("is_root", [](const Rc& c) { return c.ch.is_root(); })
      .def_prop_ro("dtype", [](const Rc& c) { return c.dt; });

  struct Sc { ScatterChannel ch; Datatype dt; };
  nb::class_<Sc>(m, "_ScatterChannel")
      .def("__init__",
           [](Sc* self, const Communicator& comm, long long count, nb::handle dtype, long long port,
              long long root, nb::handle degree) {
             const Datatype dt = datatype_arg(dtype);
             const size_t n = count_of(count), k = degree_of(degree, dt, 0);
             const int p = int_arg(port, "port"), r = int_arg(root, "root");
             nb::gil_scoped_release unlocked;
             new (self) Sc{ScatterChannel(comm, n, dt, p, r, k), dt};
           },
           nb::arg("comm"), nb::arg("count"), nb::arg("dtype"), nb::arg("port"), nb::arg("root"),
           nb::arg("degree") = nb::none(), nb::keep_alive<1, 2>())
      .def("_scatter", [](Sc& c, nb::handle v) -> nb::object {
        unsigned char s[8] = {}, e[8] = {};
        if (c.ch.is_root()) {
          const void* in = elem_in(v, c.dt, "the root's element");
          if (!in) throw nb::value_error("scatter at the root needs a value");
          std::memcpy(s, in, datatype_size(c.dt));
        }
        bool got;
        {
          nb::gil_scoped_release unlocked;
          got = c.ch.scatter(s, e);
        }
        return got ? nb::object(out(e, c.dt)) : nb::none();
      }, nb::arg("value").none())
      .def_prop_ro("count", [](const Sc& c) { return c.ch.count(); })
      .def_prop_ro("remaining", [](const Sc& c) { return c.ch.remaining(); })
      .def_prop_ro("is_root", [](const Sc& c) { return c.ch.is_root(); })
      .def_prop_ro("dtype", [](const Sc& c) { return c.dt; });

  struct Gc { GatherChannel ch; Datatype dt; };
  nb::class_<Gc>(m, "_GatherChannel")
      .def("__init__",
           [](Gc* self, const Communicator& comm, long long count, nb::handle dtype, long long port,
              long long root, nb::handle degree) {
             const Datatype dt = datatype_arg(dtype);
             const size_t n = count_of(count), k = degree_of(degree, dt, 0);
             const int p = int_arg(port, "port"), r = int_arg(root, "root");
             nb::gil_scoped_release unlocked;
             new (self) Gc{GatherChannel(comm, n, dt, p, r, k), dt};
           },
           nb::arg("comm"), nb::arg("count"), nb::arg("dtype"), nb::arg("port"), nb::arg("root"),
           nb::arg("degree") = nb::none(), nb::keep_alive<1, 2>())
      .def("_gather", [](Gc& c, nb::handle v) -> nb::object {
        // The root's value is read only during its own part; None elsewhere is fine.
        unsigned char s[8] = {}, e[8] = {};
        if (const void* in = elem_in(v, c.dt, "the element")) std::memcpy(s, in, datatype_size(c.dt));
        else if (!c.ch.is_root()) throw nb::value_error("gather needs a value on non-root ranks");
        bool got;
        {
          nb::gil_scoped_release unlocked;
          got = c.ch.gather(s, e);
        }
        return got ? nb::object(out(e, c.dt)) : nb::none();
      }, nb::arg("value").none())
      .def_prop_ro("count", [](const Gc& c) { return c.ch.count(); })
      .def_prop_ro("remaining", [](const Gc& c) { return c.ch.remaining(); })
      .def_prop_ro("is_root", [](const Gc& c) { return c.ch.is_root(); })
      .def_prop_ro("dtype", [](const Gc& c) { return c.dt; });
}

}  // namespace interlace::python
