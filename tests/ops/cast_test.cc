// Cast: every conversion family, rounding and saturation, strings both ways, errors.
#include <cmath>
#include <limits>

#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

OpCase cast(const Tensor& x, DType to, int64_t opset = 19) {
  return {"Cast", "", opset, {{"to", attr_int(static_cast<int64_t>(to))}}, {x}};
}

Tensor run_ok(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  Tensor x = f32({5}, {1.9f, -1.9f, kNaN, 1e10f, -1e10f});
  expect_tensor_eq(run_ok(cast(x, DType::kInt32)),
                   i32({5}, {1, -1, 0, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()}));
  expect_tensor_eq(run_ok(cast(f32({3}, {300.f, -5.f, 2.7f}), DType::kUInt8)), make<uint8_t>({3}, {255, 0, 2}));
  expect_tensor_eq(run_ok(cast(f64({2}, {1e30, -1e30}), DType::kInt64)),
                   i64({2}, {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}));
}

TEST(Cast, IntegerToIntegerWraps) {
  expect_tensor_eq(run_ok(cast(i64({3}, {200, -129, 5}), DType::kInt8)), make<int8_t>({3}, {-56, 127, 5}));
  expect_tensor_eq(run_ok(cast(make<int8_t>({2}, {-1, 3}), DType::kUInt16)), make<uint16_t>({2}, {65535, 3}));
  expect_tensor_eq(run_ok(cast(make<uint64_t>({1}, {std::numeric_limits<uint64_t>::max()}), DType::kInt64)),
                   i64({1}, {-1}));
}

TEST(Cast, SixteenBitFloatsRoundToNearestEven) {
  Tensor h = run_ok(cast(f32({4}, {1.f, 65520.f, 0.1f, -2.f}), DType::kFloat16));
  ASSERT_EQ(h.dtype(), DType::kFloat16);
  EXPECT_EQ(h.data<Float16>()[0].bits, 0x3C00);
  EXPECT_EQ(h.data<Float16>()[1].bits, 0x7C00);  // rounds to +inf
  EXPECT_EQ(h.data<Float16>()[2].bits, 0x2E66);
  EXPECT_EQ(h.data<Float16>()[3].bits, 0xC000);
  Tensor b = run_ok(cast(f32({3}, {1.00390625f, 1.01171875f, 3.f}), DType::kBFloat16));
  EXPECT_EQ(static_cast<float>(b.data<BFloat16>()[0]), 1.f);        // a tie: to even
  EXPECT_EQ(static_cast<float>(b.data<BFloat16>()[1]), 1.015625f);  // a tie: to even (up)
  EXPECT_EQ(static_cast<float>(b.data<BFloat16>()[2]), 3.f);
  expect_tensor_eq(run_ok(cast(f16({2}, {0.5f, -3.f}), DType::kFloat64)), f64({2}, {0.5, -3}));
  expect_tensor_eq(run_ok(cast(bf16({1}, {1.5f}), DType::kInt32)), i32({1}, {1}));
  expect_tensor_eq(run_ok(cast(i64({1}, {16777217}), DType::kFloat32)), f32({1}, {16777216.f}));
}

TEST(Cast, Bool) {
  expect_tensor_eq(run_ok(cast(f32({4}, {0.f, -0.f, 0.5f, kNaN}), DType::kBool)), bools({4}, {0, 0, 1, 1}));
  expect_tensor_eq(run_ok(cast(bools({2}, {1, 0}), DType::kFloat16)), f16({2}, {1, 0}));
  expect_tensor_eq(run_ok(cast(i64({3}, {0, 7, -1}), DType::kBool)), bools({3}, {0, 1, 1}));
}

TEST(Cast, StringToNumbers) {
  Tensor s = strs({6}, {"1.5", " -2e3 ", "INF", "-inf", "NaN", "+7"});
  Tensor f = run_ok(cast(s, DType::kFloat32));
  ASSERT_EQ(f.dtype(), DType::kFloat32);
  EXPECT_EQ(f.data<float>()[0], 1.5f);
  EXPECT_EQ(f.data<float>()[1], -2000.f);
  EXPECT_EQ(f.data<float>()[2], kInf);
  EXPECT_EQ(f.data<float>()[3], -kInf);
  EXPECT_TRUE(std::isnan(f.data<float>()[4]));
  EXPECT_EQ(f.data<float>()[5], 7.f);
  expect_tensor_eq(run_ok(cast(strs({4}, {"42", "-7", "100.5", "1e3"}), DType::kInt64)), i64({4}, {42, -7, 100, 1000}));
  expect_tensor_eq(run_ok(cast(strs({4}, {"true", "0", "FALSE", "2.5"}), DType::kBool)), bools({4}, {1, 0, 0, 1}));
  expect_tensor_eq(run_ok(cast(strs({1}, {"18446744073709551615"}), DType::kUInt64)),
                   make<uint64_t>({1}, {std::numeric_limits<uint64_t>::max()}));
}

TEST(Cast, NumbersToString) {
  expect_tensor_eq(run_ok(cast(f32({6}, {0.1f, 1e20f, -0.f, kNaN, kInf, 3.f}), DType::kString)),
                   strs({6}, {"0.1", "1e+20", "-0", "NaN", "INF", "3"}));
  expect_tensor_eq(run_ok(cast(i64({2}, {-5, 1234567890123}), DType::kString)), strs({2}, {"-5", "1234567890123"}));
  expect_tensor_eq(run_ok(cast(bools({2}, {1, 0}), DType::kString)), strs({2}, {"1", "0"}));
  expect_tensor_eq(run_ok(cast(make<uint8_t>({1}, {255}), DType::kString)), strs({1}, {"255"}));
  expect_tensor_eq(run_ok(cast(f64({1}, {-kInf}), DType::kString)), strs({1}, {"-INF"}));
}

TEST(Cast, SameTypeAndOpset1TypeName) {
  expect_tensor_eq(run_ok(cast(i64({2}, {1, 2}), DType::kInt64)), i64({2}, {1, 2}));
  auto r = run_op({"Cast", "", 1, {{"to", attr_string("FLOAT")}}, {i64({2}, {3, -4})}});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0], f32({2}, {3, -4}));
}

TEST(Cast, RandomRoundTrips) {
  Tensor ints = random_i64({37}, 8, -(int64_t{1} << 52), int64_t{1} << 52);
  Tensor d = run_ok(cast(ints, DType::kFloat64));
  for (int64_t i = 0; i < 37; ++i) ASSERT_EQ(d.data<double>()[i], static_cast<double>(ints.data<int64_t>()[i]));
  expect_tensor_eq(run_ok(cast(d, DType::kInt64)), ints);
  Tensor f = random_f32({5, 7}, 9, -1e6f, 1e6f);
  expect_tensor_eq(run_ok(cast(run_ok(cast(f, DType::kFloat64)), DType::kFloat32)), f);
  // float -> string -> float is exact (shortest round-trip text).
  expect_tensor_eq(run_ok(cast(run_ok(cast(f, DType::kString)), DType::kFloat32)), f);
  Tensor i32s = run_ok(cast(f, DType::kInt32));
  for (int64_t i = 0; i < f.numel(); ++i)
    ASSERT_EQ(i32s.data<int32_t>()[i], static_cast<int32_t>(std::trunc(f.data<float>()[i])));
}

TEST(Cast, Errors) {
  auto bad = run_op_once(cast(strs({2}, {"1", "abc"}), DType::kFloat32), false);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("cannot convert string \"abc\" (element 1) to float32"), std::string::npos)
      << bad.status().message();
  auto c64 = run_op_once(cast(f32({1}, {1}), DType::kComplex64), false);
  ASSERT_FALSE(c64.is_ok());
  EXPECT_EQ(c64.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(c64.status().message().find("complex64"), std::string::npos);
  auto missing = run_op_once({"Cast", "", 19, {}, {f32({1}, {1})}}, false);
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.status().message().find("'to'"), std::string::npos);
  auto badname = run_op_once({"Cast", "", 1, {{"to", attr_string("FLOATY")}}, {f32({1}, {1})}}, false);
  ASSERT_FALSE(badname.is_ok());
  EXPECT_NE(badname.status().message().find("FLOATY"), std::string::npos);
}

TEST(Cast, InferenceKeepsShape) {
  EXPECT_EQ(
      inferred("Cast", 19, {{"to", attr_int(static_cast<int64_t>(DType::kFloat16))}}, {sym(DType::kInt64, {"b", "3"})}),
      "float16[b, 3]");
}

}  // namespace
}  // namespace hi::test

namespace hi::test {
namespace {

TEST(CastLike, TakesTheSecondInputsType) {
  auto r = run_op({"CastLike", "", 15, {}, {f32({3}, {1.9f, -2.5f, 300.f}), i64({1}, {0})}});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0], i64({3}, {1, -2, 300}));
  auto same = run_op({"CastLike", "", 15, {}, {f32({2}, {1.5f, 2.5f}), f32({}, {0.f})}});
  ASSERT_TRUE(same.is_ok());
  expect_tensor_eq(same.value()[0], f32({2}, {1.5f, 2.5f}));
}

TEST(CastLike, NeedsTwoInputs) {
  auto r = run_op_once({"CastLike", "", 15, {}, {f32({1}, {1.f})}}, false);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("under_test"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace hi::test
