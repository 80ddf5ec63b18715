// Shared pieces of the p2p bindings (bind_p2p*.cpp): turning Python buffer
// arguments into (pointer, count, Datatype) without copying, checking Python
// integers before they are narrowed to C ints, and the Request wrapper that
// keeps buffers alive while an operation is in flight.
#pragma once
#include <cstddef>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "interlace/core/datatype.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/p2p/request.hpp"

namespace interlace::python {

namespace nb = nanobind;

// A Python buffer exported for the duration of an operation. Holding the
// Py_buffer (not just a reference to the object) keeps exporters such as
// bytearray from resizing the memory under the transfer. Must be destroyed
// with the GIL held.
class HeldBuffer {
 public:
  HeldBuffer() = default;
  HeldBuffer(const HeldBuffer&) = delete;
  HeldBuffer& operator=(const HeldBuffer&) = delete;
  HeldBuffer(HeldBuffer&& o) noexcept;
  HeldBuffer& operator=(HeldBuffer&& o) noexcept;
  ~HeldBuffer() { release(); }
  void release() noexcept;

  void* data = nullptr;
  size_t count = 0;  // elements of dt
  size_t bytes = 0;
  Datatype dt = Datatype::bytes;

 private:
  friend HeldBuffer acquire_buffer(nb::handle, bool, const char*);
  Py_buffer view_{};
  bool has_view_ = false;
  nb::object keep_;  // an intermediate object the view was taken from (bfloat16 -> uint16 view)
};

// Accepts a buffer object, or mpi4py-style [buf, datatype], [buf, count] or
// [buf, count, datatype]. The datatype is inferred from the buffer's format when
// not given; unknown formats travel as raw bytes. `writable` is for receive
// buffers. Raises TypeError/ValueError naming `what` and the offending value.
HeldBuffer acquire_buffer(nb::handle spec, bool writable, const char* what);

// Datatype from a Datatype member, its name ("int32"), its integer code, or a
// NumPy dtype / scalar type; TypeError/ValueError naming the value otherwise.
Datatype datatype_arg(nb::handle h);

// Python ints may exceed C int; name the argument instead of letting nanobind
// report an unhelpful overload failure. Range checks proper are the C++ API's.
int int_arg(long long v, const char* what);

// A non-blocking operation plus everything that must outlive it.
struct PyRequest {
  Request req;
  std::vector<HeldBuffer> held;
  nb::object keep;  // e.g. the pickled bytes of an object send
  Status status;    // filled on completion
  bool done = false;

  PyRequest() = default;
  PyRequest(const PyRequest&) = delete;
  PyRequest& operator=(const PyRequest&) = delete;
  ~PyRequest();
  // Completion bookkeeping once req has finished (GIL held).
  void finish(const Status& st);
};

// Wraps a fresh C++ request and the buffers it uses into a Python Request.
nb::object make_request(Request req, HeldBuffer a, HeldBuffer b = {}, nb::object keep = {});

// Checked before an operation starts, so a bad argument never strands a message.
Status* status_arg(nb::handle status_out);
void fill_status(nb::handle status_out, const Status& st);

}  // namespace interlace::python
