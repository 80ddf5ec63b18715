// Shared by the coll_*_test.cpp suites: deterministic per-rank inputs and a serial
// reference (rank-ordered fold with the core reduce()).
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/core/datatype.hpp"

namespace colltest {

using namespace interlace;

// Small integers are exact in every datatype (sums of 8 ranks included).
inline void put(Datatype dt, void* p, size_t i, int v) {
  switch (dt) {
    case Datatype::bytes: case Datatype::uint8: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); break;
    case Datatype::int8: static_cast<int8_t*>(p)[i] = static_cast<int8_t>(v); break;
    case Datatype::int16: static_cast<int16_t*>(p)[i] = static_cast<int16_t>(v); break;
    case Datatype::uint16: static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v); break;
    case Datatype::int32: static_cast<int32_t*>(p)[i] = v; break;
    case Datatype::uint32: static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v); break;
    case Datatype::int64: static_cast<int64_t*>(p)[i] = v; break;
    case Datatype::uint64: static_cast<uint64_t*>(p)[i] = static_cast<uint64_t>(v); break;
    case Datatype::float16: static_cast<uint16_t*>(p)[i] = float_to_half(static_cast<float>(v)); break;
    case Datatype::bfloat16: static_cast<uint16_t*>(p)[i] = float_to_bfloat16(static_cast<float>(v)); break;
    case Datatype::float32: static_cast<float*>(p)[i] = static_cast<float>(v); break;
    case Datatype::float64: static_cast<double*>(p)[i] = v; break;
  }
}

// Input element i of `rank` (a fresh stream per seed).
inline int value(int rank, size_t i, int seed, bool for_prod) {
  const uint32_t h = static_cast<uint32_t>(rank * 7919 + i * 104729 + seed * 31337);
  return for_prod ? static_cast<int>(1 + (h >> 7) % 2) : static_cast<int>((h >> 5) % 11) - 5;
}

inline std::vector<std::byte> input(Datatype dt, int rank, size_t count, int seed, bool prod = false) {
  std::vector<std::byte> v(count * datatype_size(dt) + 1);
  for (size_t i = 0; i < count; ++i) put(dt, v.data(), i, value(rank, i, seed, prod));
  v.resize(count * datatype_size(dt));
  return v;
}

// x_lo ∘ ... ∘ x_hi-1 over the ranks' inputs.
inline std::vector<std::byte> fold(Datatype dt, const coll::Op& op, int lo, int hi, size_t count, int seed,
                                   bool prod = false) {
  std::vector<std::byte> acc = input(dt, lo, count, seed, prod);
  for (int r = lo + 1; r < hi; ++r) {
    std::vector<std::byte> x = input(dt, r, count, seed, prod);
    op.apply_left(acc.data(), x.data(), count, dt);
  }
  return acc;
}

// Non-commutative, associative: 2x2 matrix product mod 2^32 over groups of 4 uint32.
inline coll::Op matmul_op() {
  return coll::Op(
      [](const void* in, void* inout, size_t count, Datatype) {
        const auto* a = static_cast<const uint32_t*>(in);
        auto* b = static_cast<uint32_t*>(inout);
        for (size_t k = 0; k + 3 < count; k += 4) {
          const uint32_t r0 = a[k] * b[k] + a[k + 1] * b[k + 2], r1 = a[k] * b[k + 1] + a[k + 1] * b[k + 3];
          const uint32_t r2 = a[k + 2] * b[k] + a[k + 3] * b[k + 2], r3 = a[k + 2] * b[k + 1] + a[k + 3] * b[k + 3];
          b[k] = r0; b[k + 1] = r1; b[k + 2] = r2; b[k + 3] = r3;
        }
      },
      false, "matmul");
}

}  // namespace colltest
