#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "interlace/core/reduce_op.hpp"

using namespace interlace;

namespace {

constexpr size_t kN = 1003;  // odd, so vector loops also run their scalar tail

bool is_bitwise(ReduceOp op) {
  return op == ReduceOp::band || op == ReduceOp::bor || op == ReduceOp::bxor;
}

// Straightforward reference for integers, wrapping like two's complement.
template <class T>
T ref_int(ReduceOp op, T a, T b) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case ReduceOp::sum: return static_cast<T>(ua + ub);
    case ReduceOp::prod: return static_cast<T>(ua * ub);
    case ReduceOp::min: return a < b ? a : b;
    case ReduceOp::max: return a > b ? a : b;
    case ReduceOp::band: return static_cast<T>(ua & ub);
    case ReduceOp::bor: return static_cast<T>(ua | ub);
    case ReduceOp::bxor: return static_cast<T>(ua ^ ub);
    case ReduceOp::land: return (a != 0 && b != 0) ? 1 : 0;
    case ReduceOp::lor: return (a != 0 || b != 0) ? 1 : 0;
  }
  return 0;
}

template <class F>
F ref_float(ReduceOp op, F a, F b) {
  switch (op) {
    case ReduceOp::sum: return a + b;
    case ReduceOp::prod: return a * b;
    case ReduceOp::min: return a < b ? a : b;
    case ReduceOp::max: return a > b ? a : b;
    case ReduceOp::land: return (a != 0 && b != 0) ? 1 : 0;
    case ReduceOp::lor: return (a != 0 || b != 0) ? 1 : 0;
    default: return 0;
  }
}

template <class T>
void check_int(ReduceOp op, Datatype t) {
  std::mt19937_64 rng(static_cast<unsigned>(op) * 31 + static_cast<unsigned>(t));
  std::vector<T> a(kN), b(kN);
  for (size_t i = 0; i < kN; ++i) {
    // Every fourth value is zero so land/lor see both truth values.
    a[i] = (i % 4 == 0) ? T(0) : static_cast<T>(rng());
    b[i] = (i % 5 == 0) ? T(0) : static_cast<T>(rng());
  }
  std::vector<T> out = a;
  ASSERT_EQ(reduce(op, t, out.data(), b.data(), kN), Errc::ok);
  for (size_t i = 0; i < kN; ++i)
    ASSERT_EQ(out[i], ref_int<T>(op, a[i], b[i]))
        << reduce_op_name(op) << " " << datatype_name(t) << " at " << i;
}

template <class F>
void check_float(ReduceOp op, Datatype t) {
  std::mt19937 rng(static_cast<unsigned>(op) * 31 + static_cast<unsigned>(t));
  std::uniform_real_distribution<F> dist(-8, 8);
  std::vector<F> a(kN), b(kN);
  for (size_t i = 0; i < kN; ++i) {
    a[i] = (i % 4 == 0) ? F(0) : dist(rng);
    b[i] = (i % 5 == 0) ? F(0) : dist(rng);
  }
  std::vector<F> out = a;
  ASSERT_EQ(reduce(op, t, out.data(), b.data(), kN), Errc::ok);
  for (size_t i = 0; i < kN; ++i)
    ASSERT_EQ(out[i], ref_float<F>(op, a[i], b[i])) << reduce_op_name(op) << " at " << i;
}

void check_16(ReduceOp op, Datatype t, float (*to)(uint16_t), uint16_t (*from)(float)) {
  std::mt19937 rng(static_cast<unsigned>(op) * 31 + static_cast<unsigned>(t));
  std::uniform_real_distribution<float> dist(-8, 8);
  std::vector<uint16_t> a(kN), b(kN);
  for (size_t i = 0; i < kN; ++i) {
    a[i] = from((i % 4 == 0) ? 0.0f : dist(rng));
    b[i] = from((i % 5 == 0) ? 0.0f : dist(rng));
  }
  std::vector<uint16_t> out = a;
  ASSERT_EQ(reduce(op, t, out.data(), b.data(), kN), Errc::ok);
  for (size_t i = 0; i < kN; ++i)
    ASSERT_EQ(out[i], from(ref_float<float>(op, to(a[i]), to(b[i]))))
        << reduce_op_name(op) << " " << datatype_name(t) << " at " << i;
}

}  // namespace

TEST(CoreReduce, EveryOpEveryDatatype) {
  for (int o = 0; o < kReduceOpCount; ++o) {
    auto op = static_cast<ReduceOp>(o);
    SCOPED_TRACE(std::string(reduce_op_name(op)));
    check_int<int8_t>(op, Datatype::int8);
    check_int<int16_t>(op, Datatype::int16);
    check_int<int32_t>(op, Datatype::int32);
    check_int<int64_t>(op, Datatype::int64);
    check_int<uint8_t>(op, Datatype::uint8);
    check_int<uint16_t>(op, Datatype::uint16);
    check_int<uint32_t>(op, Datatype::uint32);
    check_int<uint64_t>(op, Datatype::uint64);
    const Datatype floats[] = {Datatype::float16, Datatype::bfloat16, Datatype::float32,
                               Datatype::float64};
    if (is_bitwise(op)) {
      check_int<uint8_t>(op, Datatype::bytes);  // bytes combine bitwise as uint8
      for (Datatype t : floats) {
        EXPECT_FALSE(reduce_op_supports(op, t));
        double inout[4] = {1, 2, 3, 4}, in[4] = {5, 6, 7, 8};
        EXPECT_EQ(reduce(op, t, inout, in, 2), Errc::invalid_op);
        EXPECT_EQ(inout[0], 1);  // untouched
        EXPECT_EQ(inout[1], 2);
      }
    } else {
      check_float<float>(op, Datatype::float32);
      check_float<double>(op, Datatype::float64);
      check_16(op, Datatype::float16, half_to_float, float_to_half);
      check_16(op, Datatype::bfloat16, bfloat16_to_float, float_to_bfloat16);
      EXPECT_FALSE(reduce_op_supports(op, Datatype::bytes));
      unsigned char x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
      EXPECT_EQ(reduce(op, Datatype::bytes, x, y, 3), Errc::invalid_op);
      EXPECT_EQ(x[0], 1);
    }
  }
}

TEST(CoreReduce, SignedWrapAndExtremes) {
  int8_t a[3] = {127, -128, -1};
  int8_t b[3] = {1, -1, -128};
  ASSERT_EQ(reduce(ReduceOp::sum, Datatype::int8, a, b, 3), Errc::ok);
  EXPECT_EQ(a[0], -128);
  EXPECT_EQ(a[1], 127);
  EXPECT_EQ(a[2], 127);
  uint16_t c[1] = {65535}, d[1] = {65535};
  ASSERT_EQ(reduce(ReduceOp::prod, Datatype::uint16, c, d, 1), Errc::ok);
  EXPECT_EQ(c[0], 1);  // 65535^2 mod 65536
  int64_t e[1] = {std::numeric_limits<int64_t>::min()}, f[1] = {-1};
  ASSERT_EQ(reduce(ReduceOp::prod, Datatype::int64, e, f, 1), Errc::ok);
  EXPECT_EQ(e[0], std::numeric_limits<int64_t>::min());
}

TEST(CoreReduce, FloatSpecials) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  float a[4] = {nan, 1.0f, 2.0f, inf};
  float b[4] = {1.0f, nan, 3.0f, -inf};
  float mn[4], mx[4];
  std::memcpy(mn, a, sizeof a);
  std::memcpy(mx, a, sizeof a);
  ASSERT_EQ(reduce(ReduceOp::min, Datatype::float32, mn, b, 4), Errc::ok);
  ASSERT_EQ(reduce(ReduceOp::max, Datatype::float32, mx, b, 4), Errc::ok);
  EXPECT_TRUE(std::isnan(mn[0]) && std::isnan(mn[1]));  // NaN from either side propagates
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
  EXPECT_EQ(mn[2], 2.0f);
  EXPECT_EQ(mx[2], 3.0f);
  EXPECT_EQ(mn[3], -inf);
  EXPECT_EQ(mx[3], inf);
  float l[2] = {nan, 0.0f}, r[2] = {2.0f, -0.0f};
  ASSERT_EQ(reduce(ReduceOp::land, Datatype::float32, l, r, 2), Errc::ok);
  EXPECT_EQ(l[0], 1.0f);  // NaN is not zero, so it is true
  EXPECT_EQ(l[1], 0.0f);
  // Half sums round in float32 then back: 2048 + 1 is not representable in half.
  uint16_t h[1] = {float_to_half(2048.0f)}, one[1] = {float_to_half(1.0f)};
  ASSERT_EQ(reduce(ReduceOp::sum, Datatype::float16, h, one, 1), Errc::ok);
  EXPECT_EQ(half_to_float(h[0]), 2048.0f);  // tie to even
  uint16_t land16[1] = {float_to_half(3.0f)}, t16[1] = {float_to_half(-2.0f)};
  ASSERT_EQ(reduce(ReduceOp::land, Datatype::float16, land16, t16, 1), Errc::ok);
  EXPECT_EQ(land16[0], 0x3c00);
}

TEST(CoreReduce, NamesInvalidValuesAndThrowingForm) {
  for (int o = 0; o < kReduceOpCount; ++o) {
    auto op = static_cast<ReduceOp>(o);
    ASSERT_TRUE(reduce_op_from_name(reduce_op_name(op)).has_value());
    EXPECT_EQ(*reduce_op_from_name(reduce_op_name(op)), op);
  }
  EXPECT_FALSE(reduce_op_from_name("avg").has_value());
  EXPECT_EQ(reduce_op_name(static_cast<ReduceOp>(77)), "invalid");
  int32_t x[1] = {1}, y[1] = {2};
  EXPECT_EQ(reduce(static_cast<ReduceOp>(77), Datatype::int32, x, y, 1), Errc::invalid_op);
  EXPECT_EQ(reduce(ReduceOp::sum, static_cast<Datatype>(99), x, y, 1), Errc::invalid_op);
  EXPECT_EQ(x[0], 1);
  EXPECT_EQ(reduce(ReduceOp::sum, Datatype::int32, x, y, 0), Errc::ok);  // count 0 is a no-op
  EXPECT_EQ(x[0], 1);
  try {
    float f[1] = {1}, g[1] = {2};
    reduce_or_throw(ReduceOp::bxor, Datatype::float32, f, g, 1);
    FAIL() << "expected an exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_op);
    std::string msg = e.what();
    EXPECT_NE(msg.find("bxor"), std::string::npos) << msg;
    EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
  }
  reduce_or_throw(ReduceOp::sum, Datatype::int32, x, y, 1);
  EXPECT_EQ(x[0], 3);
}
