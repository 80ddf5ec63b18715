// Element-wise reductions. One template loop per (op, element type) so the
// compiler can vectorise each; a two-level switch picks the instantiation.
#include "interlace/core/reduce_op.hpp"

#include <string>
#include <type_traits>

#include "interlace/core/half.hpp"

namespace interlace {
namespace {

constexpr std::string_view kOpNames[kReduceOpCount] = {
    "sum", "prod", "min", "max", "band", "bor", "bxor", "land", "lor"};

// Signed overflow is undefined, so integer sum/prod run in the unsigned form
// of the promoted type (promotion matters: uint16*uint16 overflows int).
template <class T> struct WideOf { using type = T; };
template <class T>
  requires std::is_integral_v<T>
struct WideOf<T> { using type = std::make_unsigned_t<decltype(T() + T())>; };
template <class T> using Wide = typename WideOf<T>::type;

struct Sum {
  template <class T> static T apply(T a, T b) {
    return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
  }
};
struct Prod {
  template <class T> static T apply(T a, T b) {
    return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
  }
};
// NaN propagates from either side, so a NaN anywhere in a reduction is visible
// in the result regardless of the order ranks are combined in.
struct Min {
  template <class T> static T apply(T a, T b) {
    T r = b < a ? b : a;
    if constexpr (std::is_floating_point_v<T>) r = (b != b) ? b : r;
    return r;
  }
};
struct Max {
  template <class T> static T apply(T a, T b) {
    T r = a < b ? b : a;
    if constexpr (std::is_floating_point_v<T>) r = (b != b) ? b : r;
    return r;
  }
};
struct BAnd { static constexpr bool bitwise = true; template <class T> static T apply(T a, T b) { return a & b; } };
struct BOr { static constexpr bool bitwise = true; template <class T> static T apply(T a, T b) { return a | b; } };
struct BXor { static constexpr bool bitwise = true; template <class T> static T apply(T a, T b) { return a ^ b; } };
struct LAnd {
  template <class T> static T apply(T a, T b) { return (a != T(0) && b != T(0)) ? T(1) : T(0); }
};
struct LOr {
  template <class T> static T apply(T a, T b) { return (a != T(0) || b != T(0)) ? T(1) : T(0); }
};

template <class Op> constexpr bool is_bitwise() {
  if constexpr (requires { Op::bitwise; }) return Op::bitwise; else return false;
}

template <class Op, class T>
void loop(void* inout, const void* in, size_t n) {
  T* a = static_cast<T*>(inout);
  const T* b = static_cast<const T*>(in);
  for (size_t i = 0; i < n; ++i) a[i] = Op::template apply<T>(a[i], b[i]);
}

// 16-bit floats: widen to float32, combine, round back (nearest even).
template <class Op, float (*ToF)(uint16_t), uint16_t (*FromF)(float)>
void loop16(void* inout, const void* in, size_t n) {
  uint16_t* a = static_cast<uint16_t*>(inout);
  const uint16_t* b = static_cast<const uint16_t*>(in);
  for (size_t i = 0; i < n; ++i) a[i] = FromF(Op::template apply<float>(ToF(a[i]), ToF(b[i])));
}

template <class Op>
bool run(Datatype t, void* inout, const void* in, size_t n) {
  switch (t) {
    case Datatype::int8: loop<Op, int8_t>(inout, in, n); return true;
    case Datatype::int16: loop<Op, int16_t>(inout, in, n); return true;
    case Datatype::int32: loop<Op, int32_t>(inout, in, n); return true;
    case Datatype::int64: loop<Op, int64_t>(inout, in, n); return true;
    case Datatype::uint8: loop<Op, uint8_t>(inout, in, n); return true;
    case Datatype::uint16: loop<Op, uint16_t>(inout, in, n); return true;
    case Datatype::uint32: loop<Op, uint32_t>(inout, in, n); return true;
    case Datatype::uint64: loop<Op, uint64_t>(inout, in, n); return true;
    default: break;
  }
  if constexpr (is_bitwise<Op>()) {
    // Raw bytes combine bit-for-bit as uint8 (e.g. OR-ing bitmaps); floats never.
    if (t == Datatype::bytes) {
      loop<Op, uint8_t>(inout, in, n);
      return true;
    }
    return false;
  } else {
    switch (t) {
      case Datatype::float32: loop<Op, float>(inout, in, n); return true;
      case Datatype::float64: loop<Op, double>(inout, in, n); return true;
      case Datatype::float16:
        loop16<Op, detail::half_to_float_inline, detail::float_to_half_inline>(inout, in, n);
        return true;
      case Datatype::bfloat16:
        loop16<Op, detail::bfloat16_to_float_inline, detail::float_to_bfloat16_inline>(inout, in, n);
        return true;
      default: return false;
    }
  }
}

}  // namespace

std::string_view reduce_op_name(ReduceOp op) noexcept {
  auto i = static_cast<uint8_t>(op);
  return i < kReduceOpCount ? kOpNames[i] : std::string_view("invalid");
}

std::optional<ReduceOp> reduce_op_from_name(std::string_view name) noexcept {
  for (int i = 0; i < kReduceOpCount; ++i)
    if (kOpNames[i] == name) return static_cast<ReduceOp>(i);
  return std::nullopt;
}

bool reduce_op_supports(ReduceOp op, Datatype t) noexcept {
  if (static_cast<uint8_t>(op) >= kReduceOpCount || !datatype_valid(static_cast<uint8_t>(t)))
    return false;
  bool bitwise = op == ReduceOp::band || op == ReduceOp::bor || op == ReduceOp::bxor;
  if (t == Datatype::bytes) return bitwise;
  if (datatype_is_float(t)) return !bitwise;
  return true;
}

Errc reduce(ReduceOp op, Datatype t, void* inout, const void* in, size_t count) noexcept {
  if (!reduce_op_supports(op, t)) return Errc::invalid_op;
  bool done = false;
  switch (op) {
    case ReduceOp::sum: done = run<Sum>(t, inout, in, count); break;
    case ReduceOp::prod: done = run<Prod>(t, inout, in, count); break;
    case ReduceOp::min: done = run<Min>(t, inout, in, count); break;
    case ReduceOp::max: done = run<Max>(t, inout, in, count); break;
    case ReduceOp::band: done = run<BAnd>(t, inout, in, count); break;
    case ReduceOp::bor: done = run<BOr>(t, inout, in, count); break;
    case ReduceOp::bxor: done = run<BXor>(t, inout, in, count); break;
    case ReduceOp::land: done = run<LAnd>(t, inout, in, count); break;
    case ReduceOp::lor: done = run<LOr>(t, inout, in, count); break;
  }
  // reduce_op_supports and run() must agree; a mismatch is our bug, not the caller's.
  return done ? Errc::ok : Errc::internal;
}

void reduce_or_throw(ReduceOp op, Datatype t, void* inout, const void* in, size_t count) {
  Errc e = reduce(op, t, inout, in, count);
  if (e == Errc::invalid_op) {
    throw_error(e, "reduce op '" + std::string(reduce_op_name(op)) + "' (" +
                       std::to_string(static_cast<int>(op)) + ") is not defined for datatype '" +
                       std::string(datatype_name(t)) + "' (" +
                       std::to_string(static_cast<int>(t)) + ")");
  }
  if (e != Errc::ok)
    throw_error(e, "reduce op '" + std::string(reduce_op_name(op)) + "' on '" +
                       std::string(datatype_name(t)) + "' failed");
}

}  // namespace interlace
