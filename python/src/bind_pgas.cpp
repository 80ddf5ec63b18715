// interlace._core.Pgas: the PGAS model (include/interlace/pgas/pgas.hpp) for
// interlace/shmem.py, which gives it shmem4py's names. This file: attaching, the
// symmetric heap (addresses and memoryviews on it), contiguous and strided put/get,
// completion domains, fence/quiet. Atomics, waits and signals: pgas_atomics.cpp.
// Local buffers are any contiguous buffer; the remote side of an operation must be
// an array in the symmetric heap (Python objects never live in the program's static
// data, so only the heap is symmetric here). Waits and large copies release the GIL.
#include <cstdio>
#include <string>

#include <nanobind/ndarray.h>

#include "bind_pgas.hpp"
#include "bindings.hpp"
#include "interlace/p2p/communicator.hpp"

namespace interlace::python {

namespace {

// Copies above this size release the GIL: other Python threads run meanwhile, and
// below it the release would cost more than the copy. Blocking operations that
// travel as active messages (a peer whose heap is not mapped) release it always.
constexpr size_t kReleaseBytes = 64 << 10;

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

using Strided = nb::ndarray<nb::ro, nb::ndim<1>>;
using StridedOut = nb::ndarray<nb::ndim<1>>;

// Pointer, count, element size and element stride of a 1-D array.
struct Span1 {
  std::byte* data;
  size_t n, elem;
  ptrdiff_t stride;
};

template <class A>
Span1 span_of(const A& a, const char* what) {
  if (a.stride(0) < 0)
    throw nb::value_error((std::string(what) + ": negative strides are not supported (stride " +
                           std::to_string(a.stride(0)) + ")").c_str());
  return {static_cast<std::byte*>(const_cast<void*>(static_cast<const void*>(a.data()))), a.shape(0),
          a.itemsize(), static_cast<ptrdiff_t>(a.stride(0))};
}

size_t extent(const Span1& s) { return s.n ? ((s.n - 1) * s.stride + 1) * s.elem : 0; }

void same_layout(const Span1& t, const Span1& s, const char* what) {
  if (t.elem != s.elem || t.n != s.n)
    throw nb::value_error((std::string(what) + ": target has " + std::to_string(t.n) + " elements of " +
                           std::to_string(t.elem) + " bytes, source " + std::to_string(s.n) + " of " +
                           std::to_string(s.elem)).c_str());
}

void rma(PyPgas& g, bool is_put, nb::handle target, nb::handle source, long long pe, bool nbi,
         PyDomain* ctx) {
  const char* what = is_put ? (nbi ? "put_nbi" : "put") : (nbi ? "get_nbi" : "get");
  HeldBuffer t = acquire_buffer(target, !is_put, "target");
  HeldBuffer s = acquire_buffer(source, false, "source");
  if (s.bytes > t.bytes)
    throw nb::value_error((std::string(what) + ": source has " + std::to_string(s.bytes) +
                           " bytes, more than the target's " + std::to_string(t.bytes)).c_str());
  g.check_heap(is_put ? t.data : s.data, s.bytes, what);
  const int p = pe_arg(pe, what);
  pgas::Domain& d = g.dom(ctx, what);
  auto run = [&] {
    if (is_put) g.p->put(d, t.data, s.data, s.bytes, p, nbi);
    else g.p->get(d, t.data, s.data, s.bytes, p, nbi);
  };
  if (s.bytes >= kReleaseBytes || (!nbi && g.may_wait(is_put ? t.data : s.data, p))) {
    nb::gil_scoped_release unlocked;
    run();
  } else {
    run();
  }
  if (nbi) {
    g.pyd(ctx).pending.push_back(std::move(t));
    g.pyd(ctx).pending.push_back(std::move(s));
  }
}

template <class T, class S>
void strided(PyPgas& g, bool is_put, const T& target, const S& source, long long pe, PyDomain* ctx) {
  const char* what = is_put ? "iput" : "iget";
  const Span1 t = span_of(target, "target"), s = span_of(source, "source");
  same_layout(t, s, what);
  g.check_heap(is_put ? t.data : s.data, extent(is_put ? t : s), what);
  const int p = pe_arg(pe, what);
  pgas::Domain& d = g.dom(ctx, what);
  nb::gil_scoped_release unlocked;
  if (is_put) g.p->iput(d, t.data, s.data, t.stride, s.stride, t.n, t.elem, p);
  else g.p->iget(d, t.data, s.data, t.stride, s.stride, t.n, t.elem, p);
}

void quiet(PyPgas& g, PyDomain* ctx) {
  pgas::Domain& d = g.dom(ctx, "quiet");
  {
    nb::gil_scoped_release unlocked;
    g.p->quiet(d);
  }
  g.pyd(ctx).pending.clear();
}

}  // namespace

int pe_arg(long long pe, const char* what) {
  if (pe < INT32_MIN || pe > INT32_MAX)
    throw_error(Errc::invalid_rank, std::string(what) + ": PE " + std::to_string(pe) + " is out of range");
  return static_cast<int>(pe);
}

pgas::Domain& PyPgas::dom(PyDomain* d, const char* what) {
  if (!p) throw_error(Errc::finalized, std::string(what) + ": PGAS is not attached");
  if (!d) return p->default_domain();
  if (d->destroyed)
    throw_error(Errc::invalid_argument, std::string(what) + ": the context was destroyed");
  return d->is_default ? p->default_domain() : d->d;
}

void PyPgas::check_heap(const void* addr, size_t bytes, const char* what) const {
  if (!p) throw_error(Errc::finalized, std::string(what) + ": PGAS is not attached");
  const auto a = reinterpret_cast<uintptr_t>(addr), b = reinterpret_cast<uintptr_t>(p->heap_base());
  if (a >= b && a - b <= p->heap_size() && bytes <= p->heap_size() - (a - b)) return;
  throw_error(Errc::invalid_argument,
              std::string(what) + ": the array at " + hex(addr) + " (" + std::to_string(bytes) +
                  " bytes) is not symmetric: it is not in the symmetric heap (allocate it with "
                  "shmem.zeros, empty, full or array)");
}

void bind_pgas(nb::module_& m) {
  nb::class_<PyDomain>(m, "PgasDomain",
                       "A completion domain (an OpenSHMEM context); interlace.shmem.Ctx wraps it.")
      .def_prop_ro("destroyed", [](const PyDomain& d) { return d.destroyed; });

  nb::class_<PyPgas> cls(m, "Pgas",
                         "The PGAS model attached to the process's runtime (interlace.shmem uses it).");
  cls.def_static("attach", [](nb::object runtime, size_t heap_bytes) {
        auto& rt = nb::cast<Runtime&>(runtime);
        PyPgas g;
        {
          nb::gil_scoped_release unlocked;
          g.p = &pgas::Pgas::attach(rt, heap_bytes);
        }
        g.runtime = std::move(runtime);
        g.dflt.is_default = true;
        return g;
      }, nb::arg("runtime"), nb::arg("heap_bytes") = 0,
      "Attaches the model to `runtime` (collective); heap_bytes 0 = SHMEM_SYMMETRIC_SIZE.")
      .def_prop_ro("my_pe", [](const PyPgas& g) { return g.p->my_pe(); })
      .def_prop_ro("n_pes", [](const PyPgas& g) { return g.p->n_pes(); })
      .def_prop_ro("heap_base", [](const PyPgas& g) { return reinterpret_cast<uintptr_t>(g.p->heap_base()); })
      .def_prop_ro("heap_size", [](const PyPgas& g) { return g.p->heap_size(); })
      .def_prop_ro("heap_used", [](const PyPgas& g) { return g.p->heap_used(); })
      .def("malloc", [](PyPgas& g, size_t bytes, size_t alignment) {
        return reinterpret_cast<uintptr_t>(g.p->malloc(bytes, alignment));
      }, nb::arg("nbytes"), nb::arg("alignment") = 16,
      "Allocates from the symmetric heap (same order and sizes on every PE); returns the address.")
      .def("free", [](PyPgas& g, uintptr_t addr) { g.p->free(reinterpret_cast<void*>(addr)); },
           nb::arg("address"))
      .def("view", [](PyPgas& g, uintptr_t addr, size_t bytes) {
        g.check_heap(reinterpret_cast<void*>(addr), bytes, "view");
        return nb::steal(PyMemoryView_FromMemory(reinterpret_cast<char*>(addr),
                                                 static_cast<Py_ssize_t>(bytes), PyBUF_WRITE));
      }, nb::arg("address"), nb::arg("nbytes"), "A writable memoryview on heap memory.")
      .def("is_symmetric", [](const PyPgas& g, nb::handle buf) {
        HeldBuffer b = acquire_buffer(buf, false, "buffer");
        const auto a = reinterpret_cast<uintptr_t>(b.data), base = reinterpret_cast<uintptr_t>(g.p->heap_base());
        return a >= base && a - base <= g.p->heap_size() && b.bytes <= g.p->heap_size() - (a - base);
      }, nb::arg("buf"))
      .def("pe_accessible", [](const PyPgas& g, long long pe) {
        return pe >= 0 && pe < g.p->n_pes() && g.p->pe_accessible(static_cast<int>(pe));
      }, nb::arg("pe"))
      .def("addr_accessible", [](const PyPgas& g, nb::handle buf, long long pe) {
        HeldBuffer b = acquire_buffer(buf, false, "buffer");
        if (pe < 0 || pe >= g.p->n_pes()) return false;
        return g.p->addr_accessible(b.data, static_cast<int>(pe));
      }, nb::arg("buf"), nb::arg("pe"))
      .def("put", [](PyPgas& g, nb::handle t, nb::handle s, long long pe, bool nbi, PyDomain* ctx) {
        rma(g, true, t, s, pe, nbi, ctx);
      }, nb::arg("target"), nb::arg("source"), nb::arg("pe"), nb::arg("nbi") = false,
      nb::arg("ctx").none() = nb::none())
      .def("get", [](PyPgas& g, nb::handle t, nb::handle s, long long pe, bool nbi, PyDomain* ctx) {
        rma(g, false, t, s, pe, nbi, ctx);
      }, nb::arg("target"), nb::arg("source"), nb::arg("pe"), nb::arg("nbi") = false,
      nb::arg("ctx").none() = nb::none())
      .def("iput", [](PyPgas& g, const Strided& t, const Strided& s, long long pe, PyDomain* ctx) {
        strided(g, true, t, s, pe, ctx);
      }, nb::arg("target"), nb::arg("source"), nb::arg("pe"), nb::arg("ctx").none() = nb::none(),
      "Strided put of two 1-D arrays of equal length (any positive strides).")
      .def("iget", [](PyPgas& g, const StridedOut& t, const Strided& s, long long pe, PyDomain* ctx) {
        strided(g, false, t, s, pe, ctx);
      }, nb::arg("target"), nb::arg("source"), nb::arg("pe"), nb::arg("ctx").none() = nb::none())
      .def("fence", [](PyPgas& g, PyDomain* ctx) { g.p->fence(g.dom(ctx, "fence")); },
           nb::arg("ctx").none() = nb::none())
      .def("quiet", &quiet, nb::arg("ctx").none() = nb::none())
      .def("quiet_all", [](PyPgas& g) {
        {
          nb::gil_scoped_release unlocked;
          g.p->quiet_all();
        }
        g.dflt.pending.clear();
      })
      .def("poll", [](PyPgas& g) { g.p->poll(); })
      .def("create_domain", [](PyPgas& g) {
        PyDomain d;
        d.d = g.p->create_domain();
        return d;
      })
      .def("destroy_domain", [](PyPgas& g, PyDomain& d) {
        if (d.destroyed || d.is_default) return;
        {
          nb::gil_scoped_release unlocked;
          g.p->destroy_domain(d.d);
        }
        d.destroyed = true;
        d.pending.clear();
      }, nb::arg("ctx"))
      .def_prop_ro("default_domain", [](PyPgas& g) { return &g.dflt; }, nb::rv_policy::reference_internal);
  add_pgas_atomics(cls);
}

}  // namespace interlace::python
