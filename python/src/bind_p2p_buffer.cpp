// Buffer arguments of the capitalised p2p methods: any object with the buffer
// protocol (NumPy arrays, bytes, bytearray, memoryview, array.array) is used in
// place; the element type comes from the buffer's struct format so that a
// float32 array travels as float32 without the caller naming it.
#include <bit>
#include <climits>
#include <cstring>
#include <optional>
#include <string>

#include "bind_p2p_support.hpp"

namespace interlace::python {

namespace {

std::string py_type_name(nb::handle h) { return Py_TYPE(h.ptr())->tp_name; }

std::string short_repr(nb::handle h) {
  nb::str r = nb::repr(h);
  std::string s = r.c_str();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::string shape_text(const Py_buffer& v) {
  std::string s = "shape (";
  for (int i = 0; i < v.ndim; ++i) s += (i ? ", " : "") + std::to_string(v.shape[i]);
  s += v.ndim == 1 ? ",)" : ")";
  if (v.strides) {
    s += " and strides (";
    for (int i = 0; i < v.ndim; ++i) s += (i ? ", " : "") + std::to_string(v.strides[i]);
    s += v.ndim == 1 ? ",)" : ")";
  }
  return s;
}

Datatype int_of_size(Py_ssize_t n, bool is_signed) {
  switch (n) {
    case 1: return is_signed ? Datatype::int8 : Datatype::uint8;
    case 2: return is_signed ? Datatype::int16 : Datatype::uint16;
    case 4: return is_signed ? Datatype::int32 : Datatype::uint32;
    default: return is_signed ? Datatype::int64 : Datatype::uint64;
  }
}

// Struct-module format -> Datatype; nullopt for anything without a native
// equivalent (complex, structured, non-native byte order), which then moves as bytes.
std::optional<Datatype> from_format(const char* fmt, Py_ssize_t itemsize) {
  if (!fmt) return Datatype::uint8;  // PEP 3118: no format means unsigned bytes
  constexpr bool little = std::endian::native == std::endian::little;
  if (*fmt == '@' || *fmt == '=' || (*fmt == '<' && little) || (*fmt == '>' && !little)) ++fmt;
  if (fmt[0] == '\0' || fmt[1] != '\0') return std::nullopt;
  switch (fmt[0]) {
    case 'b': return Datatype::int8;
    case 'B': case '?': return Datatype::uint8;
    case 'c': return Datatype::bytes;
    case 'h': case 'i': case 'l': case 'q': case 'n':
      return int_of_size(itemsize, true);
    case 'H': case 'I': case 'L': case 'Q': case 'N':
      return int_of_size(itemsize, false);
    case 'e': return Datatype::float16;
    case 'f': return itemsize == 4 ? std::optional(Datatype::float32) : std::nullopt;
    case 'd': return itemsize == 8 ? std::optional(Datatype::float64) : std::nullopt;
    default: return std::nullopt;
  }
}

// ml_dtypes.bfloat16 arrays do not export a PEP 3118 format NumPy accepts.
bool is_bfloat16_array(nb::handle obj) {
  if (!nb::hasattr(obj, "dtype")) return false;
  nb::object dt = obj.attr("dtype");
  return nb::hasattr(dt, "name") && nb::str(dt.attr("name")).equal(nb::str("bfloat16"));
}

}  // namespace

HeldBuffer::HeldBuffer(HeldBuffer&& o) noexcept { *this = std::move(o); }

HeldBuffer& HeldBuffer::operator=(HeldBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data = o.data; count = o.count; bytes = o.bytes; dt = o.dt;
    view_ = o.view_; has_view_ = o.has_view_; keep_ = std::move(o.keep_);
    o.has_view_ = false;
    o.data = nullptr;
  }
  return *this;
}

void HeldBuffer::release() noexcept {
  if (has_view_) PyBuffer_Release(&view_);
  has_view_ = false;
  keep_.reset();
}

int int_arg(long long v, const char* what) {
  if (v < INT_MIN || v > INT_MAX)
    throw nb::value_error((std::string(what) + " " + std::to_string(v) +
                           " does not fit in a C int").c_str());
  return static_cast<int>(v);
}

Datatype datatype_arg(nb::handle h) {
  Datatype out;
  if (nb::try_cast<Datatype>(h, out)) return out;
  nb::handle name = h;
  nb::object tmp;
  if (PyLong_CheckExact(h.ptr())) {
    long long code = nb::cast<long long>(h);
    if (code >= 0 && code < kDatatypeCount) return static_cast<Datatype>(code);
    throw nb::value_error(("datatype code " + std::to_string(code) + " is not valid (0.." +
                           std::to_string(kDatatypeCount - 1) + ")").c_str());
  }
  if (!PyUnicode_Check(h.ptr())) {
    // numpy.dtype instances have .name; scalar types (numpy.float32) have __name__.
    if (nb::hasattr(h, "dtype") && PyType_Check(h.ptr())) tmp = nb::str(h.attr("__name__"));
    else if (nb::hasattr(h, "name")) tmp = nb::str(h.attr("name"));
    else throw nb::type_error(("datatype must be an interlace.Datatype, a name such as 'int32' or "
                               "a NumPy dtype, got " + py_type_name(h) + " " + short_repr(h)).c_str());
    name = tmp;
  }
  nb::str text(name);
  if (auto dt = datatype_from_name(text.c_str())) return *dt;
  throw nb::value_error((std::string("unknown datatype '") + text.c_str() + "'").c_str());
}

HeldBuffer acquire_buffer(nb::handle spec, bool writable, const char* what) {
  nb::handle obj = spec;
  std::optional<long long> count;
  std::optional<Datatype> given;
  if (PyList_Check(spec.ptr()) || PyTuple_Check(spec.ptr())) {
    const size_t n = nb::len(spec);
    if (n < 1 || n > 3)
      throw nb::type_error((std::string(what) + ": expected buffer, [buffer, datatype], [buffer, "
                            "count] or [buffer, count, datatype], got a " + py_type_name(spec) +
                            " of " + std::to_string(n) + " items").c_str());
    obj = spec[0];
    // Datatype members are IntEnums, so only an exact int is a count.
    nb::handle second = n > 1 ? spec[1] : nb::handle();
    const bool second_is_count = n > 1 && (PyLong_CheckExact(second.ptr()) || second.is_none());
    if (n == 3 && !second_is_count)
      throw nb::type_error((std::string(what) + ": the count in [buffer, count, datatype] must "
                            "be an int or None, got " + py_type_name(second)).c_str());
    if (second_is_count && !second.is_none()) count = nb::cast<long long>(second);
    if (n == 2 && !second_is_count) given = datatype_arg(second);
    if (n == 3) given = datatype_arg(spec[2]);
  }

  HeldBuffer hb;
  std::optional<Datatype> inferred;
  nb::object source = nb::borrow(obj);
  if (PyObject_GetBuffer(obj.ptr(), &hb.view_, PyBUF_RECORDS_RO) != 0) {
    nb::python_error failure;  // takes the pending error, so attribute lookups below are safe
    if (!nb::hasattr(obj, "dtype") || !nb::hasattr(obj, "view")) {
      if (PyObject_CheckBuffer(obj.ptr())) throw failure;
      throw nb::type_error((std::string(what) + ": expected a buffer (NumPy array, bytes, "
                            "bytearray, memoryview), got " + py_type_name(obj)).c_str());
    }
    // NumPy arrays of extension dtypes (ml_dtypes bfloat16, float8...) cannot
    // export a PEP 3118 format; move their bytes, typed when interlace knows the type.
    inferred = is_bfloat16_array(obj) ? Datatype::bfloat16 : Datatype::bytes;
    source = obj.attr("view")(inferred == Datatype::bfloat16 ? "uint16" : "uint8");
    if (PyObject_GetBuffer(source.ptr(), &hb.view_, PyBUF_RECORDS_RO) != 0) throw nb::python_error();
  }
  hb.has_view_ = true;
  hb.keep_ = source;
  const Py_buffer& v = hb.view_;
  if (writable && v.readonly)
    throw nb::value_error((std::string(what) + " is read-only (" + py_type_name(obj) +
                           "); pass a writable buffer such as a NumPy array or bytearray").c_str());
  if (!PyBuffer_IsContiguous(&v, 'A'))
    throw nb::value_error((std::string(what) + " is not contiguous (" + py_type_name(obj) + " with " +
                           shape_text(v) + "); pass numpy.ascontiguousarray(x)").c_str());
  if (!inferred) inferred = from_format(v.format, v.itemsize);
  if (!inferred && is_bfloat16_array(obj)) inferred = Datatype::bfloat16;

  hb.dt = given ? *given : inferred.value_or(Datatype::bytes);
  hb.data = v.buf;
  const size_t es = datatype_size(hb.dt);
  const size_t avail = static_cast<size_t>(v.len);
  if (count) {
    if (*count < 0)
      throw nb::value_error((std::string(what) + ": count " + std::to_string(*count) +
                             " is negative").c_str());
    if (static_cast<unsigned long long>(*count) > avail / es)
      throw nb::value_error((std::string(what) + ": count " + std::to_string(*count) + " of " +
                             std::string(datatype_name(hb.dt)) + " needs " +
                             std::to_string(*count * es) + " bytes but the buffer has " +
                             std::to_string(avail)).c_str());
    hb.count = static_cast<size_t>(*count);
  } else {
    if (avail % es != 0)
      throw nb::value_error((std::string(what) + ": " + std::to_string(avail) +
                             " bytes are not a whole number of " +
                             std::string(datatype_name(hb.dt)) + " elements (" +
                             std::to_string(es) + " bytes each)").c_str());
    hb.count = avail / es;
  }
  hb.bytes = hb.count * es;
  return hb;
}

void bind_p2p_buffer(nb::module_& m) {
  // Several binding files may want Datatype; register it once.
  if (!nb::type<Datatype>().is_valid()) {
    nb::enum_<Datatype> e(m, "Datatype", nb::is_arithmetic(),
                          "Element types, numbered as on the wire (interlace/core/datatype.hpp).");
    for (int i = 0; i < kDatatypeCount; ++i) {
      auto d = static_cast<Datatype>(i);
      e.value(std::string(datatype_name(d)).c_str(), d);
    }
  }
  m.def("datatype_size", [](nb::handle dt) { return datatype_size(datatype_arg(dt)); },
        nb::arg("datatype"), "Bytes per element of a datatype.");
  // Lets tests and users see how a buffer argument will be interpreted.
  m.def("buffer_info",
        [](nb::handle spec, bool writable) {
          HeldBuffer hb = acquire_buffer(spec, writable, "buffer");
          return nb::make_tuple(hb.dt, hb.count, hb.bytes);
        },
        nb::arg("buf"), nb::arg("writable") = false,
        "(datatype, count, nbytes) that a p2p call would use for `buf`.");
}

}  // namespace interlace::python
