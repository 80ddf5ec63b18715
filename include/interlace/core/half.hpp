// Internal: inline IEEE half / bfloat16 conversions (round to nearest even), shared
// by datatype.cpp (the public functions) and reduce_op.cpp (hot loops, where a call
// per element across translation units would block inlining).
#pragma once
#include <cstdint>
#include <cstring>

namespace interlace::detail {

inline uint32_t float_bits(float f) noexcept {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(uint32_t u) noexcept {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The conversions are written as a few candidate results and a final select,
// without loops or early returns, so the compiler can vectorise the float16 and
// bfloat16 reduction loops that call them.

// All-ones when cond holds: a branch-free select. Plain ?: lets GCC turn the
// candidates that involve float arithmetic back into branches (it may not
// speculate them under -ftrapping-math), which defeats vectorisation.
inline uint32_t mask_if(bool cond) noexcept { return 0u - static_cast<uint32_t>(cond); }
inline uint32_t select(bool cond, uint32_t a, uint32_t b) noexcept {
  uint32_t m = mask_if(cond);
  return (a & m) | (b & ~m);
}

inline float half_to_float_inline(uint16_t h) noexcept {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t em = h & 0x7fffu;  // exponent and mantissa
  // Normal: move the fields into place and rebias the exponent (127 - 15).
  uint32_t normal = (em << 13) + (112u << 23);
  // Subnormal (exponent 0): the value is mantissa * 2^-24; converting the
  // integer is exact and yields a normalised float without a loop.
  uint32_t sub = float_bits(static_cast<float>(static_cast<int32_t>(em)) * 0x1p-24f);
  // Inf / NaN keep their payload under an all-ones exponent.
  uint32_t special = 0x7f800000u | ((em & 0x3ffu) << 13);
  uint32_t r = select(em < 0x400u, sub, select(em >= 0x7c00u, special, normal));
  return bits_float(sign | r);
}

inline uint16_t float_to_half_inline(float f) noexcept {
  uint32_t u = float_bits(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  // Normal range: drop 13 mantissa bits rounding to nearest even (add just under
  // half an ulp plus the kept lsb). A carry moves into the exponent, and
  // anything that lands at or beyond 0x7c00 (including +-inf) is infinity.
  uint32_t normal = ((a - (112u << 23)) + 0xfffu + ((a >> 13) & 1u)) >> 13;
  normal = select(normal > 0x7c00u, 0x7c00u, normal);
  // Below 2^-14: adding 0.5f makes the FPU round |f| to a multiple of 2^-24
  // (0.5's ulp) with ties to even; the low bits are then the half subnormal,
  // and a round-up to 0x400 is exactly the smallest normal.
  uint32_t sub = float_bits(bits_float(a) + 0.5f) - 0x3f000000u;
  // NaN: keep the top payload bits and set the quiet bit, so a payload held
  // only in the low bits cannot turn the NaN into infinity.
  uint32_t nan = 0x7e00u | ((a >> 13) & 0x3ffu);
  uint32_t r = select(a > 0x7f800000u, nan, select(a >= (113u << 23), normal, sub));
  return static_cast<uint16_t>(sign | r);
}

inline float bfloat16_to_float_inline(uint16_t b) noexcept {
  return bits_float(static_cast<uint32_t>(b) << 16);
}

inline uint16_t float_to_bfloat16_inline(float f) noexcept {
  uint32_t u = float_bits(f);
  // Adding 0x7fff plus the lsb of the kept half rounds to nearest, ties to even;
  // a carry into the exponent reaches infinity exactly when it should.
  uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  uint32_t quiet_nan = (u >> 16) | 0x40u;  // never rounds a NaN into infinity
  bool is_nan = (u & 0x7fffffffu) > 0x7f800000u;
  return static_cast<uint16_t>(select(is_nan, quiet_nan, rounded));
}

}  // namespace interlace::detail
