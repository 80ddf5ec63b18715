#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "interlace/core/datatype.hpp"
#include "interlace/core/error.hpp"

using namespace interlace;

namespace {
uint32_t bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
float from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
}  // namespace

TEST(CoreDatatype, SizesAndNames) {
  const size_t sizes[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8};
  const char* names[] = {"bytes", "int8", "int16", "int32", "int64", "uint8", "uint16",
                         "uint32", "uint64", "float16", "bfloat16", "float32", "float64"};
  for (int i = 0; i < kDatatypeCount; ++i) {
    auto t = static_cast<Datatype>(i);
    EXPECT_EQ(datatype_size(t), sizes[i]) << names[i];
    EXPECT_EQ(datatype_name(t), names[i]);
    ASSERT_TRUE(datatype_from_name(names[i]).has_value());
    EXPECT_EQ(*datatype_from_name(names[i]), t);
    EXPECT_TRUE(datatype_valid(static_cast<uint8_t>(i)));
  }
  EXPECT_FALSE(datatype_valid(13));
  EXPECT_FALSE(datatype_valid(255));
  EXPECT_EQ(datatype_name(static_cast<Datatype>(200)), "invalid");
  EXPECT_EQ(datatype_size(static_cast<Datatype>(200)), 0u);
  EXPECT_FALSE(datatype_from_name("int31").has_value());
  EXPECT_FALSE(datatype_from_name("").has_value());
  EXPECT_EQ(*datatype_from_name("double"), Datatype::float64);
  EXPECT_EQ(*datatype_from_name("bf16"), Datatype::bfloat16);
  EXPECT_TRUE(datatype_is_float(Datatype::bfloat16));
  EXPECT_TRUE(datatype_is_float(Datatype::float64));
  EXPECT_FALSE(datatype_is_float(Datatype::int32));
  EXPECT_FALSE(datatype_is_float(Datatype::bytes));
  static_assert(datatype_of<uint16_t>::value == Datatype::uint16);
}

TEST(CoreDatatype, HalfKnownPatterns) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(0.0f), 0x0000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);  // max finite
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_half(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(float_to_half(1e6f), 0x7c00);  // overflow
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // halfway above max rounds to even = inf
  EXPECT_EQ(float_to_half(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);  // min normal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // min subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1023.0f, -24)), 0x03ff);  // max subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // tie to even (0)
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 ulp ties to 2
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25) * 1.0001f), 0x0001);  // above tie rounds up
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -30)), 0x0000);  // underflow
  // Ties in the normal range: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie, even stays
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie, odd rounds up
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3c01);
  uint16_t nan = float_to_half(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  // A NaN whose payload is only in the low bits must stay a NaN.
  uint16_t low_nan = float_to_half(from_bits(0x7f800001u));
  EXPECT_NE(low_nan & 0x03ff, 0);
}

TEST(CoreDatatype, HalfToFloat) {
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0xc000), -2.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(bits(half_to_float(0x8000)), 0x80000000u);
  EXPECT_TRUE(std::isinf(half_to_float(0x7c00)));
  EXPECT_TRUE(std::isinf(half_to_float(0xfc00)) && half_to_float(0xfc00) < 0);
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
  // Every non-NaN half survives a round trip through float exactly.
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    float f = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f))));
      continue;
    }
    ASSERT_EQ(float_to_half(f), h) << std::hex << h;
  }
}

#if defined(__FLT16_MAX__)
// The compiler's own _Float16 conversion is an independent reference: compare
// against it over a spread of float bit patterns covering every exponent.
TEST(CoreDatatype, HalfMatchesCompilerFloat16) {
  for (uint64_t u = 0; u <= 0xffffffffu; u += 4093) {
    float f = from_bits(static_cast<uint32_t>(u));
    uint16_t want;
    _Float16 h = static_cast<_Float16>(f);
    std::memcpy(&want, &h, 2);
    uint16_t got = float_to_half(f);
    if (std::isnan(f)) {
      ASSERT_EQ(got & 0x7c00, 0x7c00);
      ASSERT_NE(got & 0x3ff, 0);
      continue;
    }
    ASSERT_EQ(got, want) << std::hex << "float bits 0x" << u;
  }
}
#endif

TEST(CoreDatatype, BFloat16) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bfloat16(-1.0f), 0xbf80);
  EXPECT_EQ(float_to_bfloat16(0.0f), 0x0000);
  EXPECT_EQ(bfloat16_to_float(0x3f80), 1.0f);
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::infinity()), 0x7f80);
  // Ties: 0x3f808000 is halfway between 0x3f80 and 0x3f81 -> even (0x3f80);
  // 0x3f818000 is halfway between 0x3f81 and 0x3f82 -> even (0x3f82).
  EXPECT_EQ(float_to_bfloat16(from_bits(0x3f808000u)), 0x3f80);
  EXPECT_EQ(float_to_bfloat16(from_bits(0x3f818000u)), 0x3f82);
  EXPECT_EQ(float_to_bfloat16(from_bits(0x3f808001u)), 0x3f81);
  EXPECT_EQ(float_to_bfloat16(from_bits(0x3f807fffu)), 0x3f80);
  // Largest finite float rounds up to infinity.
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::max()), 0x7f80);
  // Subnormals keep their top bits.
  EXPECT_EQ(float_to_bfloat16(from_bits(0x00010000u)), 0x0001);
  uint16_t nan = float_to_bfloat16(from_bits(0x7f800001u));  // payload only in low bits
  EXPECT_TRUE(std::isnan(bfloat16_to_float(nan)));
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(-std::nanf("")))));
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    float f = bfloat16_to_float(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_bfloat16(f), b) << std::hex << b;
  }
}

TEST(CoreError, NamesAndSubclasses) {
  EXPECT_STREQ(errc_name(Errc::ok), "ok");
  EXPECT_STREQ(errc_name(Errc::lost_peer), "lost_peer");
  EXPECT_STREQ(errc_name(Errc::internal), "internal");
  EXPECT_STREQ(errc_name(static_cast<Errc>(999)), "unknown");
  for (int i = 0; i <= static_cast<int>(Errc::internal); ++i)
    EXPECT_STRNE(errc_name(static_cast<Errc>(i)), "unknown") << i;

  try {
    throw_error(Errc::timeout, "waited 3 s");
    FAIL();
  } catch (const TimeoutError& e) {
    EXPECT_EQ(e.code(), Errc::timeout);
    EXPECT_STREQ(e.what(), "timeout: waited 3 s");
  }
  EXPECT_THROW(throw_error(Errc::lost_peer, "rank 3"), LostPeerError);
  EXPECT_THROW(throw_error(Errc::truncated, "x"), TruncationError);
  try {
    throw_error(Errc::invalid_rank, "rank 9 of 4");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_rank);
    EXPECT_EQ(dynamic_cast<const TimeoutError*>(&e), nullptr);
  }
  errno = ENOENT;
  try {
    throw_system_error("open /nope");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::system);
    EXPECT_NE(std::string(e.what()).find("open /nope"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("errno 2"), std::string::npos);
  }
}
