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

inline float half_to_float_inline(uint16_t h) noexcept {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));  // inf / nan
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);  // keeps the sign of zero
    // Subnormal: shift the leading one up to the implicit position; every
    // shift lowers the exponent by one.
    int e = 1;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    mant &= 0x3ffu;
    return bits_float(sign | (static_cast<uint32_t>(e + 127 - 15) << 23) | (mant << 13));
  }
  return bits_float(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

inline uint16_t float_to_half_inline(float f) noexcept {
  uint32_t u = float_bits(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  int32_t exp = static_cast<int32_t>((u >> 23) & 0xffu);
  uint32_t mant = u & 0x7fffffu;
  if (exp == 0xff) {
    if (mant == 0) return sign | 0x7c00u;
    // Keep the top payload bits and force the quiet bit so a NaN never
    // collapses into infinity when its payload sits only in the low bits.
    return static_cast<uint16_t>(sign | 0x7e00u | (mant >> 13));
  }
  int32_t e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00u;  // beyond 65504 even before rounding
  if (e <= 0) {
    // Half subnormal: value = q * 2^-24 with q = full * 2^(exp-126).
    uint32_t shift = static_cast<uint32_t>(126 - exp);
    if (shift > 24) return sign;  // below half of the smallest subnormal
    uint32_t full = mant | 0x800000u;
    uint32_t q = full >> shift;
    uint32_t rem = full & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1u))) ++q;  // may carry into min normal
    return static_cast<uint16_t>(sign | q);
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  // A carry out of the mantissa bumps the exponent, reaching inf at 0x7c00.
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

inline float bfloat16_to_float_inline(uint16_t b) noexcept {
  return bits_float(static_cast<uint32_t>(b) << 16);
}

inline uint16_t float_to_bfloat16_inline(float f) noexcept {
  uint32_t u = float_bits(f);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu) != 0)
    return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN, never rounds to inf
  // Adding 0x7fff plus the lsb of the kept part rounds to nearest, ties to even.
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

}  // namespace interlace::detail
