// Element-wise kernels of the predefined MPI operators on predefined datatypes.
// Elements are read and written with memcpy: packed streams (e.g. MPI_DOUBLE_INT,
// 12 data bytes per element) put values at unaligned addresses.
#include "compat/mpi/mpi_op_kernels.hpp"

#include <complex>
#include <cstring>
#include <cwchar>

#include "compat/mpi/mpi_impl.hpp"

namespace interlace::mpi {
namespace {

enum class Cat { none, integer, floating, complex, logical, byte, pair };

Cat category(MPI_Datatype t) noexcept {
  switch (t) {
    // MPI_CHAR is text in the standard, but Open MPI and MPICH reduce it as a C
    // integer and programs rely on it (OSU's osu_get_acc_latency sums MPI_CHAR).
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_SHORT: case MPI_UNSIGNED_SHORT:
    case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG:
    case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG: case MPI_INT8_T: case MPI_INT16_T:
    case MPI_INT32_T: case MPI_INT64_T: case MPI_UINT8_T: case MPI_UINT16_T:
    case MPI_UINT32_T: case MPI_UINT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT:
      return Cat::integer;
    case MPI_FLOAT: case MPI_DOUBLE: case MPI_LONG_DOUBLE: return Cat::floating;
    case MPI_C_FLOAT_COMPLEX: case MPI_C_DOUBLE_COMPLEX: case MPI_C_LONG_DOUBLE_COMPLEX:
      return Cat::complex;
    case MPI_C_BOOL: return Cat::logical;
    case MPI_BYTE: return Cat::byte;
    case MPI_FLOAT_INT: case MPI_DOUBLE_INT: case MPI_LONG_INT: case MPI_2INT:
    case MPI_SHORT_INT: case MPI_LONG_DOUBLE_INT: case MPI_2REAL: case MPI_2DOUBLE_PRECISION:
      return Cat::pair;
    default: return Cat::none;  // MPI_WCHAR, MPI_PACKED: no reductions
  }
}

// Calls f(T*) with the C type of a predefined, non-pair datatype.
template <class F>
void with_ctype(MPI_Datatype t, F&& f) {
  switch (t) {
    case MPI_CHAR: f(static_cast<char*>(nullptr)); return;
    case MPI_SIGNED_CHAR: f(static_cast<signed char*>(nullptr)); return;
    case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_PACKED:
      f(static_cast<unsigned char*>(nullptr)); return;
    case MPI_WCHAR: f(static_cast<wchar_t*>(nullptr)); return;
    case MPI_SHORT: f(static_cast<short*>(nullptr)); return;
    case MPI_UNSIGNED_SHORT: f(static_cast<unsigned short*>(nullptr)); return;
    case MPI_INT: f(static_cast<int*>(nullptr)); return;
    case MPI_UNSIGNED: f(static_cast<unsigned*>(nullptr)); return;
    case MPI_LONG: f(static_cast<long*>(nullptr)); return;
    case MPI_UNSIGNED_LONG: f(static_cast<unsigned long*>(nullptr)); return;
    case MPI_LONG_LONG_INT: case MPI_OFFSET: case MPI_COUNT:
      f(static_cast<long long*>(nullptr)); return;
    case MPI_UNSIGNED_LONG_LONG: f(static_cast<unsigned long long*>(nullptr)); return;
    case MPI_FLOAT: f(static_cast<float*>(nullptr)); return;
    case MPI_DOUBLE: f(static_cast<double*>(nullptr)); return;
    case MPI_LONG_DOUBLE: f(static_cast<long double*>(nullptr)); return;
    case MPI_C_BOOL: f(static_cast<bool*>(nullptr)); return;
    case MPI_INT8_T: f(static_cast<int8_t*>(nullptr)); return;
    case MPI_INT16_T: f(static_cast<int16_t*>(nullptr)); return;
    case MPI_INT32_T: f(static_cast<int32_t*>(nullptr)); return;
    case MPI_INT64_T: f(static_cast<int64_t*>(nullptr)); return;
    case MPI_UINT8_T: f(static_cast<uint8_t*>(nullptr)); return;
    case MPI_UINT16_T: f(static_cast<uint16_t*>(nullptr)); return;
    case MPI_UINT32_T: f(static_cast<uint32_t*>(nullptr)); return;
    case MPI_UINT64_T: f(static_cast<uint64_t*>(nullptr)); return;
    case MPI_AINT: f(static_cast<MPI_Aint*>(nullptr)); return;
    case MPI_C_FLOAT_COMPLEX: f(static_cast<std::complex<float>*>(nullptr)); return;
    case MPI_C_DOUBLE_COMPLEX: f(static_cast<std::complex<double>*>(nullptr)); return;
    case MPI_C_LONG_DOUBLE_COMPLEX: f(static_cast<std::complex<long double>*>(nullptr)); return;
    default: raise(MPI_ERR_INTERN, "no C type for datatype " + std::to_string(t));
  }
}

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(std::byte* p, T v) { std::memcpy(p, &v, sizeof v); }

// One element: a = in op a.
template <class T>
T combine(MPI_Op op, T in, T a) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>> ||
                std::is_same_v<T, std::complex<long double>>) {
    return op == MPI_SUM ? in + a : in * a;  // op_allows admits only SUM and PROD
  } else {
    switch (op) {
      case MPI_MAX: return in > a ? in : a;
      case MPI_MIN: return in < a ? in : a;
      case MPI_SUM: return static_cast<T>(in + a);
      case MPI_PROD: return static_cast<T>(in * a);
      case MPI_LAND: return static_cast<T>((in != T{}) && (a != T{}));
      case MPI_LOR: return static_cast<T>((in != T{}) || (a != T{}));
      case MPI_LXOR: return static_cast<T>((in != T{}) != (a != T{}));
      default: break;
    }
    if constexpr (std::is_integral_v<T>) {
      switch (op) {
        case MPI_BAND: return static_cast<T>(in & a);
        case MPI_BOR: return static_cast<T>(in | a);
        case MPI_BXOR: return static_cast<T>(in ^ a);
        default: break;
      }
    }
    raise(MPI_ERR_INTERN, "operator " + std::to_string(op) + " has no kernel");
  }
}

// MINLOC/MAXLOC on (value, int index) pairs; equal values keep the lower index.
// I: the index type (int; the value's own type for Fortran's MPI_2REAL and
// MPI_2DOUBLE_PRECISION).
template <class V, class I = int>
void loc(MPI_Op op, const std::byte* in, std::byte* inout, size_t n) {
  constexpr size_t stride = sizeof(V) + sizeof(I);
  for (size_t i = 0; i < n; ++i) {
    const std::byte* p = in + i * stride;
    std::byte* q = inout + i * stride;
    const V vi = load<V>(p), vo = load<V>(q);
    const I ii = load<I>(p + sizeof(V)), io = load<I>(q + sizeof(V));
    const bool in_wins = op == MPI_MINLOC ? vi < vo : vi > vo;
    if (in_wins || (vi == vo && ii < io)) {
      store(q, vi);
      store(q + sizeof(V), ii);
    }
  }
}

}  // namespace

size_t predefined_align(MPI_Datatype t) noexcept {
  switch (t) {
    case MPI_FLOAT_INT: return alignof(float);
    case MPI_DOUBLE_INT: return alignof(double);
    case MPI_LONG_INT: return alignof(long);
    case MPI_2INT: case MPI_SHORT_INT: return alignof(int);
    case MPI_LONG_DOUBLE_INT: return alignof(long double);
    default: break;
  }
  if (t <= MPI_DATATYPE_NULL || t >= IL_MPI_PREDEFINED_TYPES) return 1;
  size_t a = 1;
  with_ctype(t, [&](auto* p) { a = alignof(std::remove_pointer_t<decltype(p)>); });
  return a;
}

bool op_allows(MPI_Op op, MPI_Datatype t) noexcept {
  const Cat c = category(t);
  switch (op) {
    case MPI_MAX: case MPI_MIN: return c == Cat::integer || c == Cat::floating;
    case MPI_SUM: case MPI_PROD:
      return c == Cat::integer || c == Cat::floating || c == Cat::complex;
    case MPI_LAND: case MPI_LOR: case MPI_LXOR: return c == Cat::integer || c == Cat::logical;
    case MPI_BAND: case MPI_BOR: case MPI_BXOR: return c == Cat::integer || c == Cat::byte;
    case MPI_MINLOC: case MPI_MAXLOC: return c == Cat::pair;
    default: return false;  // MPI_REPLACE, MPI_NO_OP: one-sided only
  }
}

void apply_predefined(MPI_Op op, MPI_Datatype t, const void* in_v, void* inout_v, size_t n) {
  const auto* in = static_cast<const std::byte*>(in_v);
  auto* inout = static_cast<std::byte*>(inout_v);
  if (category(t) == Cat::pair) {
    switch (t) {
      case MPI_FLOAT_INT: loc<float>(op, in, inout, n); return;
      case MPI_DOUBLE_INT: loc<double>(op, in, inout, n); return;
      case MPI_LONG_INT: loc<long>(op, in, inout, n); return;
      case MPI_2INT: loc<int>(op, in, inout, n); return;
      case MPI_SHORT_INT: loc<short>(op, in, inout, n); return;
      case MPI_LONG_DOUBLE_INT: loc<long double>(op, in, inout, n); return;
      case MPI_2REAL: loc<float, float>(op, in, inout, n); return;
      case MPI_2DOUBLE_PRECISION: loc<double, double>(op, in, inout, n); return;
      default: break;
    }
  }
  with_ctype(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    for (size_t i = 0; i < n; ++i) {
      const size_t off = i * sizeof(T);
      store(inout + off, combine<T>(op, load<T>(in + off), load<T>(inout + off)));
    }
  });
}

}  // namespace interlace::mpi
