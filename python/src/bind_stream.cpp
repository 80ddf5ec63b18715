// interlace._core.SendChannel / RecvChannel: SMI streaming channels for Python.
// interlace/stream.py subclasses them (NumPy-returning pop_n, defaults, docs).
// push/pop keep the GIL when the element fits the current packet (nothing can
// block then) and release it otherwise; the bulk calls always release it.
#include <cmath>
#include <limits>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bind_p2p_support.hpp"
#include "bindings.hpp"
#include "interlace/stream/channel.hpp"
#include "smi.h"

namespace interlace::python {

namespace {

using stream::RecvChannel;
using stream::SendChannel;

size_t degree_arg(nb::handle degree, Datatype dt) {
  if (degree.is_none()) return std::max<size_t>(1, SMI_DEFAULT_DEGREE_BYTES / datatype_size(dt));
  long long k;
  if (!nb::try_cast<long long>(degree, k))
    throw nb::type_error(("degree must be an int or None, got " + std::string(Py_TYPE(degree.ptr())->tp_name)).c_str());
  if (k < 0) throw nb::value_error(("degree " + std::to_string(k) + " is negative").c_str());
  return static_cast<size_t>(k);
}

size_t count_arg(long long count) {
  if (count < 0) throw nb::value_error(("count " + std::to_string(count) + " is negative").c_str());
  return static_cast<size_t>(count);
}

template <class T>
T int_in_range(nb::handle v, Datatype dt) {
  long long s;
  unsigned long long u;
  const bool is_signed = std::numeric_limits<T>::is_signed;
  bool ok = is_signed ? nb::try_cast<long long>(v, s) : nb::try_cast<unsigned long long>(v, u);
  if (ok && is_signed) ok = s >= std::numeric_limits<T>::min() && s <= std::numeric_limits<T>::max();
  if (ok && !is_signed) ok = u <= std::numeric_limits<T>::max();
  if (!ok) {
    std::string repr = nb::cast<std::string>(nb::repr(v));
    throw nb::value_error((repr + " is not a valid " + std::string(datatype_name(dt)) + " element").c_str());
  }
  return is_signed ? static_cast<T>(s) : static_cast<T>(u);
}

double float_arg(nb::handle v, Datatype dt) {
  double d;
  if (!nb::try_cast<double>(v, d)) {
    std::string repr = nb::cast<std::string>(nb::repr(v));
    throw nb::type_error((repr + " is not a number for a " + std::string(datatype_name(dt)) + " channel").c_str());
  }
  return d;
}

// One Python value as the bytes of one element of dt (8 bytes of room).
void encode(nb::handle v, Datatype dt, unsigned char* out) {
  auto put = [&](auto x) { std::memcpy(out, &x, sizeof x); };
  switch (dt) {
    case Datatype::bytes: case Datatype::uint8: put(int_in_range<uint8_t>(v, dt)); break;
    case Datatype::int8: put(int_in_range<int8_t>(v, dt)); break;
    case Datatype::int16: put(int_in_range<int16_t>(v, dt)); break;
    case Datatype::int32: put(int_in_range<int32_t>(v, dt)); break;
    case Datatype::int64: put(int_in_range<int64_t>(v, dt)); break;
    case Datatype::uint16: put(int_in_range<uint16_t>(v, dt)); break;
    case Datatype::uint32: put(int_in_range<uint32_t>(v, dt)); break;
    case Datatype::uint64: put(int_in_range<uint64_t>(v, dt)); break;
    case Datatype::float16: put(float_to_half(static_cast<float>(float_arg(v, dt)))); break;
    case Datatype::bfloat16: put(float_to_bfloat16(static_cast<float>(float_arg(v, dt)))); break;
    case Datatype::float32: put(static_cast<float>(float_arg(v, dt))); break;
    case Datatype::float64: put(float_arg(v, dt)); break;
  }
}

nb::object decode(const unsigned char* in, Datatype dt) {
  auto get = [&](auto x) { std::memcpy(&x, in, sizeof x); return x; };
  switch (dt) {
    case Datatype::bytes: case Datatype::uint8: return nb::int_(get(uint8_t{}));
    case Datatype::int8: return nb::int_(get(int8_t{}));
    case Datatype::int16: return nb::int_(get(int16_t{}));
    case Datatype::int32: return nb::int_(get(int32_t{}));
    case Datatype::int64: return nb::int_(get(int64_t{}));
    case Datatype::uint16: return nb::int_(get(uint16_t{}));
    case Datatype::uint32: return nb::int_(get(uint32_t{}));
    case Datatype::uint64: return nb::int_(get(uint64_t{}));
    case Datatype::float16: return nb::float_(half_to_float(get(uint16_t{})));
    case Datatype::bfloat16: return nb::float_(bfloat16_to_float(get(uint16_t{})));
    case Datatype::float32: return nb::float_(get(float{}));
    case Datatype::float64: return nb::float_(get(double{}));
  }
  return nb::none();
}

// The buffer's elements must be the channel's type (raw bytes of a multiple of the
// element size pass too), so a float64 array never lands in a float32 channel.
size_t elements_for(const HeldBuffer& b, Datatype dt, const char* what) {
  const size_t es = datatype_size(dt);
  if (b.dt == dt) return b.count;
  if (b.dt == Datatype::bytes && b.bytes % es == 0) return b.bytes / es;
  throw nb::type_error((std::string(what) + " holds " + std::string(datatype_name(b.dt)) +
                        " elements but the channel carries " + std::string(datatype_name(dt)))
                           .c_str());
}

void push(SendChannel& ch, nb::handle v) {
  if (!ch.is_open()) throw_error(Errc::invalid_argument, "push on a SendChannel that is not open");
  unsigned char e[8];
  const Datatype dt = ch.datatype();
  encode(v, dt, e);
  const size_t es = datatype_size(dt);
  // Room for this element without filling the packet: the push cannot block.
  const std::byte* cur = ch.window_pos();
  if (cur && static_cast<size_t>(ch.window_end() - cur) > es) {
    ch.push(e);
    return;
  }
  nb::gil_scoped_release unlocked;
  ch.push(e);
}

nb::object pop(RecvChannel& ch) {
  if (!ch.is_open()) throw_error(Errc::invalid_argument, "pop on a RecvChannel that is not open");
  unsigned char e[8];
  const Datatype dt = ch.datatype();
  const std::byte* cur = ch.window_pos();
  if (cur && static_cast<size_t>(ch.window_end() - cur) > datatype_size(dt)) {
    ch.pop(e);
  } else {
    nb::gil_scoped_release unlocked;
    ch.pop(e);
  }
  return decode(e, dt);
}

void push_n(SendChannel& ch, nb::handle buf) {
  HeldBuffer b = acquire_buffer(buf, false, "push_n buffer");
  const size_t n = elements_for(b, ch.datatype(), "the push_n buffer");
  nb::gil_scoped_release unlocked;
  ch.push_n(b.data, n);
}

void pop_into(RecvChannel& ch, nb::handle buf) {
  HeldBuffer b = acquire_buffer(buf, true, "pop_n buffer");
  const size_t n = elements_for(b, ch.datatype(), "the pop_n buffer");
  nb::gil_scoped_release unlocked;
  ch.pop_n(b.data, n);
}

}  // namespace

void bind_stream(nb::module_& m) {
  m.attr("DEFAULT_DEGREE_BYTES") = SMI_DEFAULT_DEGREE_BYTES;

  nb::class_<SendChannel>(m, "SendChannel", "Sending end of a streaming channel (SMI).")
      .def("__init__",
           [](SendChannel* self, const Communicator& comm, long long dest, long long port,
              long long count, nb::handle dtype, nb::handle degree) {
             const Datatype dt = datatype_arg(dtype);
             const size_t n = count_arg(count), k = degree_arg(degree, dt);
             const int d = int_arg(dest, "dest"), p = int_arg(port, "port");
             nb::gil_scoped_release unlocked;
             new (self) SendChannel(comm, d, p, n, dt, k);
           },
           nb::arg("comm"), nb::arg("dest"), nb::arg("port"), nb::arg("count"), nb::arg("dtype"),
           nb::arg("degree") = nb::none(), nb::keep_alive<1, 2>())
      .def("push", &push, nb::arg("value"))
      .def("push_n", &push_n, nb::arg("buf"))
      .def("flush", [](SendChannel& ch) {
        nb::gil_scoped_release unlocked;
        ch.flush();
      })
      .def_prop_ro("count", &SendChannel::count)
      .def_prop_ro("remaining", &SendChannel::remaining)
      .def_prop_ro("closed", &SendChannel::closed)
      .def_prop_ro("eager", &SendChannel::eager)
      .def_prop_ro("dtype", &SendChannel::datatype);

  nb::class_<RecvChannel>(m, "RecvChannel", "Receiving end of a streaming channel (SMI).")
      .def("__init__",
           [](RecvChannel* self, const Communicator& comm, long long source, long long port,
              long long count, nb::handle dtype, nb::handle degree) {
             const Datatype dt = datatype_arg(dtype);
             const size_t n = count_arg(count), k = degree_arg(degree, dt);
             const int s = int_arg(source, "source"), p = int_arg(port, "port");
             nb::gil_scoped_release unlocked;
             new (self) RecvChannel(comm, s, p, n, dt, k);
           },
           nb::arg("comm"), nb::arg("source"), nb::arg("port"), nb::arg("count"), nb::arg("dtype"),
           nb::arg("degree") = nb::none(), nb::keep_alive<1, 2>())
      .def("pop", &pop)
      .def("pop_into", &pop_into, nb::arg("buf"))
      .def_prop_ro("count", &RecvChannel::count)
      .def_prop_ro("remaining", &RecvChannel::remaining)
      .def_prop_ro("closed", &RecvChannel::closed)
      .def_prop_ro("dtype", &RecvChannel::datatype);
}

}  // namespace interlace::python
