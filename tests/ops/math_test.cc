// Variadic ops (Sum, Max, Min, Mean), Pow with mixed types, and the unary math ops (Abs, Sign,
// Reciprocal, Floor, Ceil, Round, IsNaN, IsInf): hand-computed cases, edge cases, errors, and
// random awkward sizes checked against direct computation.
#include <cmath>
#include <limits>

#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

Tensor run_ok(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// ---- Sum / Max / Min / Mean ------------------------------------------------------------------

TEST(Variadic, ThreeInputsWithBroadcasting) {
  Tensor a = f32({2, 1}, {1, 2}), b = f32({3}, {10, 20, 30}), c = f32({}, {100});
  expect_tensor_eq(run_ok({"Sum", "", 13, {}, {a, b, c}}), f32({2, 3}, {111, 121, 131, 112, 122, 132}));
  expect_tensor_near(run_ok({"Mean", "", 13, {}, {a, b, c}}),
                     f32({2, 3}, {37, 121.f / 3, 131.f / 3, 112.f / 3, 122.f / 3, 44}));
  expect_tensor_eq(run_ok({"Max", "", 13, {}, {a, f32({3}, {0, 1.5f, 3})}}), f32({2, 3}, {1, 1.5f, 3, 2, 2, 3}));
  expect_tensor_eq(run_ok({"Min", "", 13, {}, {a, f32({3}, {0, 1.5f, 3})}}), f32({2, 3}, {0, 1, 1, 0, 1.5f, 2}));
}

TEST(Variadic, OneInputZeroSizeAndIntegers) {
  expect_tensor_eq(run_ok({"Sum", "", 13, {}, {f32({2}, {1, 2})}}), f32({2}, {1, 2}));
  expect_tensor_eq(run_ok({"Mean", "", 13, {}, {f32({2}, {1, 2})}}), f32({2}, {1, 2}));
  EXPECT_EQ(run_ok({"Max", "", 13, {}, {f32({0, 3}, {}), f32({1, 3}, {1, 2, 3})}}).shape(), (Shape{0, 3}));
  expect_tensor_eq(run_ok({"Max", "", 13, {}, {i64({3}, {-5, 7, 0}), i64({1}, {1}), i64({3}, {2, 2, -9})}}),
                   i64({3}, {2, 7, 1}));
  expect_tensor_eq(run_ok({"Min", "", 13, {}, {make<uint8_t>({2}, {200, 3}), make<uint8_t>({2}, {100, 255})}}),
                   make<uint8_t>({2}, {100, 3}));
}

TEST(Variadic, MaxMinPropagateNaN) {
  Tensor y = run_ok({"Max", "", 13, {}, {f32({2}, {kNaN, 1}), f32({2}, {1, kNaN})}});
  EXPECT_TRUE(std::isnan(y.data<float>()[0]));
  EXPECT_TRUE(std::isnan(y.data<float>()[1]));
  Tensor z = run_ok({"Min", "", 13, {}, {f32({1}, {kNaN}), f32({1}, {-1})}});
  EXPECT_TRUE(std::isnan(z.data<float>()[0]));
}

TEST(Variadic, Float16MeanRoundsOnce) {
  // (1 + 2048 + 2048) / 3 = 1365.67 in float, 1366 in float16 (spacing 1 there).
  Tensor y = run_ok({"Mean", "", 13, {}, {f16({1}, {1}), f16({1}, {2048}), f16({1}, {2048})}});
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[0]), 1366.f);
}

TEST(Variadic, RandomAwkward) {
  Tensor a = random_f32({4, 1, 3}, 1), b = random_f32({5, 1}, 2), c = random_f32({1, 5, 3}, 3);
  Tensor sum = run_ok({"Sum", "", 13, {}, {a, b, c}});
  Tensor mx = run_ok({"Max", "", 13, {}, {a, b, c}});
  Tensor mean = run_ok({"Mean", "", 13, {}, {a, b, c}});
  ASSERT_EQ(sum.shape(), (Shape{4, 5, 3}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t k = 0; k < 3; ++k) {
        const int64_t o = (i * 5 + j) * 3 + k;
        const float av = a.data<float>()[i * 3 + k], bv = b.data<float>()[j], cv = c.data<float>()[j * 3 + k];
        ASSERT_FLOAT_EQ(sum.data<float>()[o], av + bv + cv);
        ASSERT_EQ(mx.data<float>()[o], std::max({av, bv, cv}));
        ASSERT_NEAR(mean.data<float>()[o], (av + bv + cv) / 3, 1e-6);
      }
}

TEST(Variadic, Errors) {
  expect_error({"Sum", "", 13, {}, {f32({1}, {1}), f64({1}, {1})}}, {"different types", "float32", "float64"});
  expect_error({"Max", "", 13, {}, {f32({2}, {1, 2}), f32({3}, {1, 2, 3})}}, {"cannot be broadcast"});
  expect_error({"Sum", "", 13, {}, {i64({1}, {1})}}, {"does not support", "int64"});
  expect_error({"Max", "", 13, {}, {bools({1}, {1})}}, {"does not support", "bool"});
  EXPECT_EQ(inferred("Sum", 13, {}, {sym(DType::kFloat32, {"b", "1"}), sym(DType::kFloat32, {"3"})}), "float32[b, 3]");
}

// ---- Pow -------------------------------------------------------------------------------------

TEST(Pow, MixedTypes) {
  expect_tensor_near(run_ok({"Pow", "", 15, {}, {f32({3}, {2, 4, -2}), f32({3}, {0.5f, -1, 3})}}),
                     f32({3}, {1.41421356f, 0.25f, -8}));
  expect_tensor_eq(run_ok({"Pow", "", 15, {}, {f32({3}, {2, 3, -2}), i64({3}, {10, 2, 3})}}), f32({3}, {1024, 9, -8}));
  expect_tensor_eq(run_ok({"Pow", "", 15, {}, {i32({3}, {1, 2, 3}), f32({3}, {4, 5, 6})}}), i32({3}, {1, 32, 729}));
  expect_tensor_eq(run_ok({"Pow", "", 15, {}, {i64({2}, {2, 2}), i32({2}, {3, 0})}}), i64({2}, {8, 1}));
  // Integer powers are exact beyond double's 53 bits.
  expect_tensor_eq(run_ok({"Pow", "", 15, {}, {i64({1}, {3}), i64({1}, {39})}}), i64({1}, {4052555153018976267}));
  // Negative integer exponents truncate toward zero; 0 to a negative power saturates.
  expect_tensor_eq(run_ok({"Pow", "", 15, {}, {i64({4}, {2, 1, -1, 0}), i64({1}, {-1})}}),
                   i64({4}, {0, 1, -1, std::numeric_limits<int64_t>::max()}));
  Tensor h = run_ok({"Pow", "", 15, {}, {f16({1}, {3}), f32({}, {2})}});
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[0]), 9.f);
}

TEST(Pow, RandomAwkwardBroadcast) {
  Tensor x = random_f32({3, 1, 4}, 5, 0.1f, 3.f), y = random_f32({5, 1}, 6, -2.f, 2.f);
  Tensor r = run_ok({"Pow", "", 15, {}, {x, y}});
  ASSERT_EQ(r.shape(), (Shape{3, 5, 4}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t k = 0; k < 4; ++k)
        ASSERT_NEAR(r.data<float>()[(i * 5 + j) * 4 + k], std::pow(x.data<float>()[i * 4 + k], y.data<float>()[j]),
                    1e-5 * std::abs(std::pow(x.data<float>()[i * 4 + k], y.data<float>()[j])));
}

TEST(Pow, Errors) {
  expect_error({"Pow", "", 15, {}, {bools({1}, {1}), f32({1}, {1})}}, {"base", "bool"});
  expect_error({"Pow", "", 15, {}, {f32({1}, {1}), strs({1}, {"2"})}}, {"exponent", "string"});
  expect_error({"Pow", "", 15, {}, {f32({2}, {1, 2}), f32({3}, {1, 2, 3})}}, {"cannot be broadcast"});
  EXPECT_EQ(inferred("Pow", 15, {}, {sym(DType::kInt32, {"n", "1"}), sym(DType::kFloat32, {"4"})}), "int32[n, 4]");
}

// ---- Unary -----------------------------------------------------------------------------------

TEST(Unary, AbsAndSign) {
  expect_tensor_eq(run_ok({"Abs", "", 13, {}, {f32({3}, {-1.5f, 0, 2})}}), f32({3}, {1.5f, 0, 2}));
  // The most negative int8 has no positive counterpart: it wraps to itself.
  expect_tensor_eq(run_ok({"Abs", "", 13, {}, {make<int8_t>({3}, {-128, -5, 7})}}), make<int8_t>({3}, {-128, 5, 7}));
  expect_tensor_eq(run_ok({"Abs", "", 13, {}, {i64({1}, {std::numeric_limits<int64_t>::min()})}}),
                   i64({1}, {std::numeric_limits<int64_t>::min()}));
  expect_tensor_eq(run_ok({"Abs", "", 13, {}, {make<uint16_t>({1}, {65535})}}), make<uint16_t>({1}, {65535}));
  Tensor s = run_ok({"Sign", "", 13, {}, {f32({5}, {-3, -0.f, 0, 2.5f, kNaN})}});
  EXPECT_EQ(s.data<float>()[0], -1.f);
  EXPECT_EQ(s.data<float>()[1], 0.f);
  EXPECT_EQ(s.data<float>()[2], 0.f);
  EXPECT_EQ(s.data<float>()[3], 1.f);
  EXPECT_TRUE(std::isnan(s.data<float>()[4]));
  expect_tensor_eq(run_ok({"Sign", "", 13, {}, {i32({3}, {-7, 0, 9})}}), i32({3}, {-1, 0, 1}));
  expect_tensor_eq(run_ok({"Sign", "", 13, {}, {make<uint8_t>({2}, {0, 9})}}), make<uint8_t>({2}, {0, 1}));
}

TEST(Unary, ReciprocalFloorCeil) {
  expect_tensor_eq(run_ok({"Reciprocal", "", 13, {}, {f32({3}, {2, -0.5f, 0})}}), f32({3}, {0.5f, -2, kInf}));
  expect_tensor_eq(run_ok({"Floor", "", 13, {}, {f32({4}, {-1.5f, 1.5f, 2, -0.2f})}}), f32({4}, {-2, 1, 2, -1}));
  expect_tensor_eq(run_ok({"Ceil", "", 13, {}, {f32({4}, {-1.5f, 1.5f, 2, -0.2f})}}), f32({4}, {-1, 2, 2, -0.f}));
  expect_tensor_eq(run_ok({"Floor", "", 13, {}, {f64({2}, {2.5, -2.5})}}), f64({2}, {2, -3}));
}

TEST(Unary, RoundHalfToEven) {
  expect_tensor_eq(
      run_ok({"Round", "", 11, {}, {f32({10}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, 2.6f, -2.6f, 7.f})}}),
      f32({10}, {0, 2, 2, -0.f, -2, -2, 2, 3, -3, 7}));
  expect_tensor_eq(run_ok({"Round", "", 11, {}, {f16({3}, {0.5f, 1.5f, 3.5f})}}), f16({3}, {0, 2, 4}));
  expect_tensor_eq(run_ok({"Round", "", 11, {}, {f64({2}, {4.5, 1e300})}}), f64({2}, {4, 1e300}));
}

TEST(Unary, IsNaNAndIsInf) {
  Tensor x = f32({5}, {1, kNaN, kInf, -kInf, 0});
  expect_tensor_eq(run_ok({"IsNaN", "", 13, {}, {x}}), bools({5}, {0, 1, 0, 0, 0}));
  expect_tensor_eq(run_ok({"IsInf", "", 10, {}, {x}}), bools({5}, {0, 0, 1, 1, 0}));
  expect_tensor_eq(run_ok({"IsInf", "", 10, {{"detect_negative", attr_int(0)}}, {x}}), bools({5}, {0, 0, 1, 0, 0}));
  expect_tensor_eq(run_ok({"IsInf", "", 10, {{"detect_positive", attr_int(0)}}, {x}}), bools({5}, {0, 0, 0, 1, 0}));
  expect_tensor_eq(run_ok({"IsNaN", "", 13, {}, {f16({2}, {kNaN, 1})}}), bools({2}, {1, 0}));
  expect_tensor_eq(run_ok({"IsInf", "", 10, {}, {f64({2}, {std::numeric_limits<double>::infinity(), 1})}}),
                   bools({2}, {1, 0}));
}

TEST(Unary, RandomAwkwardAgainstStd) {
  Tensor x = random_f32({7, 13}, 77, -10.f, 10.f);
  Tensor fl = run_ok({"Floor", "", 13, {}, {x}});
  Tensor ce = run_ok({"Ceil", "", 13, {}, {x}});
  Tensor ro = run_ok({"Round", "", 11, {}, {x}});
  Tensor ab = run_ok({"Abs", "", 13, {}, {x}});
  Tensor re = run_ok({"Reciprocal", "", 13, {}, {x}});
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float v = x.data<float>()[i];
    ASSERT_EQ(fl.data<float>()[i], std::floor(v));
    ASSERT_EQ(ce.data<float>()[i], std::ceil(v));
    ASSERT_EQ(ro.data<float>()[i], std::nearbyint(v));  // default rounding mode: to nearest even
    ASSERT_EQ(ab.data<float>()[i], std::fabs(v));
    ASSERT_FLOAT_EQ(re.data<float>()[i], 1.f / v);
  }
}

TEST(Unary, UnsupportedTypes) {
  expect_error({"Round", "", 11, {}, {i64({1}, {1})}}, {"does not support", "int64"});
  expect_error({"IsNaN", "", 13, {}, {i32({1}, {1})}}, {"does not support", "int32"});
  expect_error({"Abs", "", 13, {}, {bools({1}, {1})}}, {"does not support", "bool"});
  expect_error({"Reciprocal", "", 13, {}, {i64({1}, {2})}}, {"does not support", "int64"});
  EXPECT_EQ(inferred("IsInf", 10, {}, {sym(DType::kFloat32, {"b"})}), "bool[b]");
}

}  // namespace
}  // namespace hi::test
