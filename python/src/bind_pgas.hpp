// Shared pieces of the PGAS bindings (bind_pgas*.cpp): the attached model as Python
// sees it, completion domains, and the checks that an array lies in the symmetric
// heap. interlace/shmem.py builds the shmem4py-style API on these.
#pragma once
#include <cstdint>
#include <vector>

#include "bind_p2p_support.hpp"
#include "interlace/pgas/pgas.hpp"

namespace interlace::python {

// A completion domain (an OpenSHMEM context). Buffers of non-blocking operations
// stay exported here until quiet, so NumPy cannot free or resize them meanwhile.
struct PyDomain {
  pgas::Domain d;
  std::vector<HeldBuffer> pending;
  bool is_default = false;
  bool destroyed = false;
  PyDomain() = default;
  PyDomain(PyDomain&&) = default;
  PyDomain& operator=(PyDomain&&) = default;
  PyDomain(const PyDomain&) = delete;  // the held buffers are not copyable
};

// The model attached to the process's runtime. `runtime` keeps the Python Runtime
// (and so the heap) alive as long as this object is.
struct PyPgas {
  pgas::Pgas* p = nullptr;
  nb::object runtime;
  PyDomain dflt;
  PyPgas() = default;
  PyPgas(PyPgas&&) = default;
  PyPgas& operator=(PyPgas&&) = default;
  PyPgas(const PyPgas&) = delete;
  pgas::Domain& dom(PyDomain* d, const char* what);
  PyDomain& pyd(PyDomain* d) { return d ? *d : dflt; }
  // Throws invalid_argument naming `what` unless [addr, addr+bytes) is in the heap.
  void check_heap(const void* addr, size_t bytes, const char* what) const;
  // Whether an operation on `sym` at `pe` is an active message (it may wait for
  // the peer's reply); a PE out of range also counts, the operation then throws.
  bool may_wait(const void* sym, int pe) const { return p->ptr(sym, pe) == nullptr; }
};

int pe_arg(long long pe, const char* what);

// Atomics, waits and signals (pgas_atomics.cpp; not a bind_ file, so module.cpp does
// not call it on its own: bind_pgas() adds them to its class).
void add_pgas_atomics(nb::class_<PyPgas>& cls);

}  // namespace interlace::python
