// Atomics on local memory: the same CPU atomics serve a direct atomic on a mapped
// peer heap and an atomic that arrived as an active message, so both kinds agree.
#include <atomic>
#include <cstring>

#include "pgas/pgas_state.hpp"

namespace interlace::pgas {

namespace {
template <class T>
T from_bits(uint64_t b) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const uint32_t w = static_cast<uint32_t>(b);
    std::memcpy(&v, &w, 4);
  } else {
    std::memcpy(&v, &b, 8);
  }
  return v;
}

template <class T>
uint64_t to_bits(T v) {
  if constexpr (sizeof(T) == 4) {
    uint32_t w;
    std::memcpy(&w, &v, 4);
    return w;
  } else {
    uint64_t w;
    std::memcpy(&w, &v, 8);
    return w;
  }
}

template <class T>
uint64_t apply(AmoOp op, void* addr, uint64_t operand, uint64_t compare) {
  std::atomic_ref<T> a(*static_cast<T*>(addr));
  const T v = from_bits<T>(operand);
  switch (op) {
    case AmoOp::fetch: return to_bits(a.load(std::memory_order_seq_cst));
    case AmoOp::set: a.store(v, std::memory_order_seq_cst); return 0;
    case AmoOp::swap: return to_bits(a.exchange(v, std::memory_order_seq_cst));
    case AmoOp::cswap: {
      T expected = from_bits<T>(compare);
      a.compare_exchange_strong(expected, v, std::memory_order_seq_cst);
      return to_bits(expected);
    }
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case AmoOp::fetch_add: case AmoOp::add: return to_bits(a.fetch_add(v, std::memory_order_seq_cst));
      case AmoOp::fetch_and: case AmoOp::and_: return to_bits(a.fetch_and(v, std::memory_order_seq_cst));
      case AmoOp::fetch_or: case AmoOp::or_: return to_bits(a.fetch_or(v, std::memory_order_seq_cst));
      case AmoOp::fetch_xor: case AmoOp::xor_: return to_bits(a.fetch_xor(v, std::memory_order_seq_cst));
      default: break;
    }
  } else {
    if (op == AmoOp::fetch_add || op == AmoOp::add) {
      T old = a.load(std::memory_order_relaxed);
      while (!a.compare_exchange_weak(old, static_cast<T>(old + v), std::memory_order_seq_cst)) {}
      return to_bits(old);
    }
  }
  throw_error(Errc::invalid_op, "pgas: bitwise atomic on a floating-point type");
}
}  // namespace

uint64_t apply_amo(AmoOp op, AmoType type, void* addr, uint64_t operand, uint64_t compare) {
  switch (type) {
    case AmoType::i32: return apply<int32_t>(op, addr, operand, compare);
    case AmoType::i64: return apply<int64_t>(op, addr, operand, compare);
    case AmoType::u32: return apply<uint32_t>(op, addr, operand, compare);
    case AmoType::u64: return apply<uint64_t>(op, addr, operand, compare);
    case AmoType::f32: return apply<float>(op, addr, operand, compare);
    case AmoType::f64: return apply<double>(op, addr, operand, compare);
  }
  throw_error(Errc::invalid_datatype, "pgas: atomic type " + std::to_string(int(type)) + " is not known");
}

void apply_signal(uint64_t* addr, uint64_t value, SignalOp op) {
  std::atomic_ref<uint64_t> a(*addr);
  if (op == SignalOp::add) a.fetch_add(value, std::memory_order_seq_cst);
  else a.store(value, std::memory_order_seq_cst);
}

bool compare(Cmp cmp, AmoType type, const volatile void* addr, const void* value) {
  auto test = [cmp](auto x, auto y) {
    switch (cmp) {
      case Cmp::eq: return x == y;
      case Cmp::ne: return x != y;
      case Cmp::gt: return x > y;
      case Cmp::ge: return x >= y;
      case Cmp::lt: return x < y;
      case Cmp::le: return x <= y;
    }
    return false;
  };
  auto load = [&](auto tag) {
    using T = decltype(tag);
    T x = std::atomic_ref<T>(*const_cast<T*>(static_cast<const volatile T*>(addr))).load(std::memory_order_acquire);
    T y;
    std::memcpy(&y, value, sizeof(T));
    return test(x, y);
  };
  switch (type) {
    case AmoType::i32: return load(int32_t{});
    case AmoType::i64: return load(int64_t{});
    case AmoType::u32: return load(uint32_t{});
    case AmoType::u64: return load(uint64_t{});
    case AmoType::f32: return load(float{});
    case AmoType::f64: return load(double{});
  }
  return false;
}

}  // namespace interlace::pgas
