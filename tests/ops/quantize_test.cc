// The quantization ops: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
// QLinearMatMul, ConvInteger and QLinearConv. Expected values are worked out by hand from the
// ONNX spec (round half to even, saturation, zero points per tensor/axis/block/row/column);
// the error cases check the message names what is wrong.
#include <algorithm>
#include <cmath>

#include "ops/op_test_util.h"
#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

using Attrs = std::map<std::string, ir::Attribute>;

Tensor run1(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

// Fails when the session is built (constant inputs) and when it runs (graph inputs).
void expect_error_both(const OpCase& c, const std::vector<std::string>& fragments) {
  expect_error(c, fragments, false);
  expect_error(c, fragments, true);
}

Tensor u8(const Shape& s, const std::vector<uint8_t>& v) { return make<uint8_t>(s, v); }
Tensor i8(const Shape& s, const std::vector<int8_t>& v) { return make<int8_t>(s, v); }
Tensor i16(const Shape& s, const std::vector<int16_t>& v) { return make<int16_t>(s, v); }
Tensor u16(const Shape& s, const std::vector<uint16_t>& v) { return make<uint16_t>(s, v); }
// A sub-byte integer tensor (int4, uint4, int2, uint2), held one value per byte.
template <typename S>
Tensor sub_byte(DType t, const Shape& s, const std::vector<S>& v) {
  Tensor out = Tensor::empty(t, s);
  for (size_t i = 0; i < v.size(); ++i) out.data<S>()[i] = v[i];
  return out;
}

// A float8 tensor from float values (rounded to nearest even, saturating).
template <typename M>
Tensor minifloat(const Shape& s, const std::vector<float>& v) {
  std::vector<M> m;
  for (float f : v) m.push_back(M(f));
  return make<M>(s, m);
}
// Dtype, shape and bit codes of a float8 result.
template <typename M>
void expect_codes(const Tensor& got, const Shape& s, const std::vector<uint8_t>& codes) {
  ASSERT_EQ(got.dtype(), dtype_of<M>);
  ASSERT_EQ(got.shape(), s);
  for (size_t i = 0; i < codes.size(); ++i) EXPECT_EQ(got.data<M>()[i].bits, codes[i]) << "element " << i;
}

// ---- QuantizeLinear --------------------------------------------------------------------------

TEST(QuantizeLinear, SpecExampleSaturatesAndRoundsHalfToEven) {
  // x / 2 = [0, 1, 1.5, 500, -127, -500]; + 128, saturated to [0, 255].
  expect_tensor_eq(
      run1({"QuantizeLinear", "", 10, {}, {f32({6}, {0, 2, 3, 1000, -254, -1000}), f32({}, {2}), u8({}, {128})}}),
      u8({6}, {128, 129, 130, 255, 1, 0}));
  expect_tensor_eq(run1({"QuantizeLinear",
                         "",
                         13,
                         {},
                         {f32({6}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f}), f32({}, {1}), i8({}, {0})}}),
                   i8({6}, {0, 2, 2, 0, -2, -2}));
  // No zero point: uint8 with zero point 0.
  expect_tensor_eq(run1({"QuantizeLinear", "", 13, {}, {f32({3}, {-1, 3, 300}), f32({}, {1})}}), u8({3}, {0, 3, 255}));
}

// Large float32 tensors take the vectorised 8-bit path (ops/quantize_loops.cc): per tensor, and
// per axis with runs of 64 or more; every element against the spec computed here in double:
// exact halves (ties to even), NaN and infinities, values far past the range, negative zero.
TEST(QuantizeLinear, EightBitFastPathMatchesTheSpec) {
  const int64_t channels = 3, inner = 700;  // runs of 700 along axis 1
  std::vector<float> xv(static_cast<size_t>(2 * channels * inner));
  for (size_t i = 0; i < xv.size(); ++i)
    xv[i] = static_cast<float>(static_cast<int64_t>(i * 7919 % 2001) - 1000) * 0.25f;
  xv[1] = NAN;
  xv[2] = INFINITY;
  xv[3] = -INFINITY;
  xv[4] = 3e30f;
  xv[5] = -0.f;
  const std::vector<float> scales = {0.5f, 1.f, 3.f};
  const Tensor x = f32({2, channels, inner}, xv);
  auto spec = [](float v, float scale, int zp, int lo, int hi) {
    const float q = v / scale;  // float32 division, as the spec's precision says
    const double r = std::isnan(q) ? 0.0 : std::nearbyint(static_cast<double>(q));
    return static_cast<int>(std::clamp(r + zp, static_cast<double>(lo), static_cast<double>(hi)));
  };
  const Tensor per_tensor_u8 = run1({"QuantizeLinear", "", 13, {}, {x, f32({}, {0.5f}), u8({}, {17})}});
  const Tensor per_axis_i8 = run1({"QuantizeLinear", "", 13, {}, {x, f32({3}, scales), i8({3}, {-3, 0, 5})}});
  const int zps[3] = {-3, 0, 5};
  for (size_t i = 0; i < xv.size(); ++i) {
    const size_t ch = i / inner % channels;
    ASSERT_EQ(per_tensor_u8.data<uint8_t>()[i], spec(xv[i], 0.5f, 17, 0, 255)) << "element " << i << " x " << xv[i];
    ASSERT_EQ(per_axis_i8.data<int8_t>()[i], spec(xv[i], scales[ch], zps[ch], -128, 127))
        << "element " << i << " x " << xv[i];
  }
  // And back: (q - zero point) * scale, rounded once to float32.
  const Tensor back = run1({"DequantizeLinear", "", 13, {}, {per_axis_i8, f32({3}, scales), i8({3}, {-3, 0, 5})}});
  for (size_t i = 0; i < xv.size(); ++i) {
    const size_t ch = i / inner % channels;
    const double want = (static_cast<double>(per_axis_i8.data<int8_t>()[i]) - zps[ch]) * scales[ch];
    ASSERT_EQ(back.data<float>()[i], static_cast<float>(want)) << "element " << i;
  }
}

TEST(QuantizeLinear, PerAxisAndNegativeAxis) {
  const Tensor x = f32({2, 3}, {4, 4, 4, -8, -8, -8});
  const Tensor want = i8({2, 3}, {4, 3, 3, -8, -3, 0});
  expect_tensor_eq(run1({"QuantizeLinear", "", 13, {}, {x, f32({3}, {1, 2, 4}), i8({3}, {0, 1, 2})}}), want);
  expect_tensor_eq(
      run1({"QuantizeLinear", "", 13, {{"axis", attr_int(-1)}}, {x, f32({3}, {1, 2, 4}), i8({3}, {0, 1, 2})}}), want);
  // axis 0 of a [2, 3]: one scale per row.
  expect_tensor_eq(run1({"QuantizeLinear", "", 13, {{"axis", attr_int(0)}}, {x, f32({2}, {2, 4}), i8({2}, {0, 10})}}),
                   i8({2, 3}, {2, 2, 2, 8, 8, 8}));
}

TEST(QuantizeLinear, BlockedWithARemainderBlock) {
  // Columns 0..2 use block 0, column 3 block 1 (block_size 3 over a dim of 4).
  const Tensor x = f32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  expect_tensor_eq(run1({"QuantizeLinear",
                         "",
                         21,
                         {{"axis", attr_int(1)}, {"block_size", attr_int(3)}},
                         {x, f32({2, 2}, {1, 2, 2, 0.5f}), u8({2, 2}, {0, 1, 2, 3})}}),
                   u8({2, 4}, {1, 2, 3, 3, 4, 5, 6, 19}));
  // axis 0 of a [3, 2] in blocks of 2: rows 0-1 share a scale, row 2 has its own.
  expect_tensor_eq(run1({"QuantizeLinear",
                         "",
                         21,
                         {{"axis", attr_int(0)}, {"block_size", attr_int(2)}, {"output_dtype", attr_int(5)}},
                         {f32({3, 2}, {10, 20, 30, 40, 50, 60}), f32({2, 2}, {10, 5, 25, 2})}}),
                   i16({3, 2}, {1, 4, 3, 8, 2, 30}));
}

TEST(QuantizeLinear, SixteenBitAndSubByteTargets) {
  expect_tensor_eq(run1({"QuantizeLinear", "", 21, {}, {f32({3}, {-40000, 1.5f, 40000}), f32({}, {1}), i16({}, {0})}}),
                   i16({3}, {-32768, 2, 32767}));
  expect_tensor_eq(run1({"QuantizeLinear", "", 21, {}, {f32({3}, {-1, 2.5f, 70000}), f32({}, {1}), u16({}, {10})}}),
                   u16({3}, {9, 12, 65535}));
  expect_tensor_eq(run1({"QuantizeLinear",
                         "",
                         21,
                         {},
                         {f32({4}, {-20, -3, 3.5f, 20}), f32({}, {1}), sub_byte<int8_t>(DType::kInt4, {}, {1})}}),
                   sub_byte<int8_t>(DType::kInt4, {4}, {-8, -2, 5, 7}));
  expect_tensor_eq(run1({"QuantizeLinear",
                         "",
                         25,
                         {},
                         {f32({3}, {-5, 0.5f, 5}), f32({}, {1}), sub_byte<uint8_t>(DType::kUInt2, {}, {1})}}),
                   sub_byte<uint8_t>(DType::kUInt2, {3}, {0, 1, 3}));
}

TEST(QuantizeLinear, OtherInputTypesAndPrecision) {
  // float16 x and scale (opset 19), int32 x with a float scale (opset 10).
  expect_tensor_eq(run1({"QuantizeLinear", "", 19, {}, {f16({3}, {1, 3, -7}), f16({}, {2}), i8({}, {0})}}),
                   i8({3}, {0, 2, -4}));
  expect_tensor_eq(
      run1({"QuantizeLinear", "", 10, {}, {make<int32_t>({3}, {100, 7, -1000}), f32({}, {2}), u8({}, {0})}}),
      u8({3}, {50, 4, 0}));
  // precision float16: 1001.3 is 1001.5 in float16, which rounds half to even to 1002.
  const Tensor x = f32({1}, {1001.3f});
  expect_tensor_eq(run1({"QuantizeLinear", "", 23, {{"output_dtype", attr_int(5)}}, {x, f32({}, {1})}}),
                   i16({1}, {1001}));
  expect_tensor_eq(
      run1({"QuantizeLinear", "", 23, {{"output_dtype", attr_int(5)}, {"precision", attr_int(10)}}, {x, f32({}, {1})}}),
      i16({1}, {1002}));
  // A float16 scale divides in float16 too (opset 23 lets x and y_scale differ).
  expect_tensor_eq(run1({"QuantizeLinear", "", 23, {{"output_dtype", attr_int(5)}}, {x, f16({}, {1})}}),
                   i16({1}, {1002}));
}

TEST(QuantizeLinear, InfersTypeAndShape) {
  EXPECT_EQ(inferred("QuantizeLinear", 21, {},
                     {sym(DType::kFloat32, {"N", "4"}), sym(DType::kFloat32, {}), sym(DType::kInt16, {})}),
            "int16[N, 4]");
  EXPECT_EQ(inferred("QuantizeLinear", 21, {{"output_dtype", attr_int(3)}},
                     {sym(DType::kFloat32, {"N"}), sym(DType::kFloat32, {})}),
            "int8[N]");
  EXPECT_EQ(inferred("QuantizeLinear", 13, {}, {sym(DType::kFloat32, {"N"}), sym(DType::kFloat32, {})}), "uint8[N]");
}

TEST(QuantizeLinear, Errors) {
  const Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_error_both({"QuantizeLinear", "", 13, {}, {x, f32({3}, {1, 1, 1}), u8({2}, {0, 0})}},
                    {"zero point shape [2]", "y_scale shape [3]"});
  expect_error_both({"QuantizeLinear", "", 13, {}, {x, f32({2}, {1, 1})}}, {"y_scale [2]", "size 3 along axis 1"});
  expect_error_both({"QuantizeLinear", "", 10, {}, {x, f32({3}, {1, 1, 1})}}, {"opset 10", "per tensor only"});
  expect_error_both({"QuantizeLinear", "", 13, {{"axis", attr_int(2)}}, {x, f32({3}, {1, 1, 1})}},
                    {"axis 2", "rank 2"});
  expect_error_both(
      {"QuantizeLinear", "", 21, {{"axis", attr_int(1)}, {"block_size", attr_int(2)}}, {x, f32({2, 1}, {1, 1})}},
      {"block_size 2", "must be [2, 2]", "got [2, 1]"});
  expect_error_both({"QuantizeLinear", "", 13, {}, {x, f32({2, 3}, {1, 1, 1, 1, 1, 1})}}, {"needs block_size"});
  expect_error_both({"QuantizeLinear", "", 19, {}, {x, f32({}, {1}), i16({}, {0})}},
                    {"opset 19", "int16", "needs opset >= 21"});
  expect_error_both({"QuantizeLinear", "", 19, {}, {x, f16({}, {1})}},
                    {"y_scale of type float16", "x of type float32"});
  expect_error_both({"QuantizeLinear", "", 13, {}, {make<int64_t>({1}, {1}), f32({}, {1})}}, {"x of type int64"});
  expect_error_both({"QuantizeLinear", "", 21, {{"output_dtype", attr_int(3)}}, {x, f32({}, {1}), u8({}, {0})}},
                    {"output_dtype int8", "uint8"});
  expect_error_both({"QuantizeLinear", "", 23, {{"precision", attr_int(3)}}, {x, f32({}, {1})}},
                    {"precision int8", "opset 23"});
  expect_error_both({"QuantizeLinear", "", 21, {{"output_dtype", attr_int(6)}}, {x, f32({}, {1})}},
                    {"output_dtype", "int32"});
}

// ---- DequantizeLinear ------------------------------------------------------------------------

TEST(DequantizeLinear, SpecExampleAndTypes) {
  expect_tensor_eq(run1({"DequantizeLinear", "", 10, {}, {u8({4}, {0, 3, 128, 255}), f32({}, {2}), u8({}, {128})}}),
                   f32({4}, {-256, -250, 0, 254}));
  expect_tensor_eq(run1({"DequantizeLinear", "", 10, {}, {make<int32_t>({2}, {-7, 1 << 20}), f32({}, {0.5f})}}),
                   f32({2}, {-3.5f, 524288}));
  expect_tensor_eq(run1({"DequantizeLinear", "", 21, {}, {i16({2}, {-32768, 32767}), f32({}, {1}), i16({}, {-1})}}),
                   f32({2}, {-32767, 32768}));
  // float16 scale -> float16 output; output_dtype (opset 23) overrides it.
  expect_tensor_eq(run1({"DequantizeLinear", "", 19, {}, {i8({2}, {-4, 6}), f16({}, {0.25f})}}), f16({2}, {-1, 1.5f}));
  expect_tensor_eq(
      run1({"DequantizeLinear", "", 23, {{"output_dtype", attr_int(16)}}, {i8({2}, {-4, 6}), f32({}, {0.25f})}}),
      bf16({2}, {-1, 1.5f}));
  expect_tensor_eq(
      run1({"DequantizeLinear",
            "",
            21,
            {},
            {sub_byte<int8_t>(DType::kInt4, {3}, {-8, 0, 7}), f32({}, {2}), sub_byte<int8_t>(DType::kInt4, {}, {-1})}}),
      f32({3}, {-14, 2, 16}));
}

TEST(DequantizeLinear, PerAxisAndBlocked) {
  expect_tensor_eq(run1({"DequantizeLinear",
                         "",
                         13,
                         {},
                         {u8({2, 3}, {10, 10, 10, 20, 20, 20}), f32({3}, {1, 2, 0.5f}), u8({3}, {0, 10, 20})}}),
                   f32({2, 3}, {10, 0, -5, 20, 20, 0}));
  expect_tensor_eq(run1({"DequantizeLinear",
                         "",
                         21,
                         {{"axis", attr_int(1)}, {"block_size", attr_int(3)}},
                         {i8({1, 4}, {1, 2, 3, 4}), f32({1, 2}, {2, 10}), i8({1, 2}, {1, 0})}}),
                   f32({1, 4}, {0, 2, 4, 40}));
}

TEST(DequantizeLinear, Errors) {
  const Tensor x = u8({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_error_both({"DequantizeLinear", "", 13, {}, {x, f32({}, {1}), i8({}, {0})}},
                    {"x_zero_point is int8", "x is uint8"});
  expect_error_both({"DequantizeLinear", "", 13, {}, {x, f32({3}, {1, 1, 1}), u8({3, 1}, {0, 0, 0})}},
                    {"zero point shape [3, 1]"});
  expect_error_both({"DequantizeLinear", "", 13, {{"axis", attr_int(0)}}, {x, f32({3}, {1, 1, 1})}},
                    {"x_scale [3]", "size 2 along axis 0"});
  expect_error_both({"DequantizeLinear", "", 19, {}, {i16({1}, {0}), f32({}, {1})}},
                    {"DequantizeLinear (opset 19)", "int16", ">= 21"});
  expect_error_both({"DequantizeLinear", "", 13, {}, {x, f16({}, {1})}}, {"x_scale of type float16"});
  expect_error_both({"DequantizeLinear", "", 13, {}, {f32({1}, {1}), f32({}, {1})}}, {"x of type float32"});
  expect_error_both({"DequantizeLinear", "", 23, {{"output_dtype", attr_int(6)}}, {x, f32({}, {1})}},
                    {"output_dtype int32"});
}

TEST(QuantizeLinear, Float8SaturateAttribute) {
  // x / 2 = [0, 0.5, 50000]: e4m3fn's largest finite value is 448 (code 0x7e); without
  // saturation an out-of-range value becomes NaN (0x7f). e5m2 has an infinity (0x7c).
  const Tensor x = f32({3}, {0, 1, 100000});
  const Tensor zp8 = minifloat<Float8E4M3FN>({1}, {0});
  expect_codes<Float8E4M3FN>(run1({"QuantizeLinear", "", 19, {}, {x, f32({}, {2}), zp8}}), {3}, {0x00, 0x30, 0x7e});
  expect_codes<Float8E4M3FN>(run1({"QuantizeLinear", "", 19, {{"saturate", attr_int(0)}}, {x, f32({}, {2}), zp8}}), {3},
                             {0x00, 0x30, 0x7f});
  const Tensor zp5 = minifloat<Float8E5M2>({1}, {0});
  expect_codes<Float8E5M2>(
      run1({"QuantizeLinear", "", 19, {{"saturate", attr_int(0)}}, {f32({1}, {1e6f}), f32({}, {1}), zp5}}), {1},
      {0x7c});
  expect_codes<Float8E5M2>(run1({"QuantizeLinear", "", 19, {}, {f32({1}, {1e6f}), f32({}, {1}), zp5}}), {1}, {0x7b});
  expect_error_both({"QuantizeLinear", "", 13, {}, {x, f32({}, {2}), zp8}}, {"float8e4m3fn", "needs opset >= 19"});
}

TEST(DequantizeLinear, Float8) {
  expect_tensor_eq(
      run1({"DequantizeLinear", "", 19, {}, {minifloat<Float8E4M3FN>({3}, {0.5f, 448, -104}), f32({}, {2})}}),
      f32({3}, {1, 896, -208}));
}

TEST(QLinearMatMul, Float8Opset21) {
  // [1, 2] x [0.5, 0.25]^T = 1, rescaled by 1 * 1 / 0.5 = 2.
  const Tensor a = minifloat<Float8E4M3FN>({1, 2}, {1, 2});
  const Tensor b = minifloat<Float8E4M3FN>({2, 1}, {0.5f, 0.25f});
  const Tensor z = minifloat<Float8E4M3FN>({}, {0});
  const Tensor one = f32({}, {1});
  expect_codes<Float8E4M3FN>(run1({"QLinearMatMul", "", 21, {}, {a, one, z, b, one, z, f32({}, {0.5f}), z}}), {1, 1},
                             {0x40});
  expect_error_both({"QLinearMatMul", "", 10, {}, {a, one, z, b, one, z, one, z}},
                    {"opset 10", "float8e4m3fn", "needs opset >= 21"});
}

// ---- DynamicQuantizeLinear -------------------------------------------------------------------

TEST(DynamicQuantizeLinear, ScaleAndZeroPointFromTheRange) {
  // Range [-3, 2]: scale 5/255, zero point 3 * 51 = 153. -2.5 / scale is just above -127.5
  // in float32 (the scale rounds up), so it quantizes to 153 - 127.
  auto r = run_op({"DynamicQuantizeLinear", "", 11, {}, {f32({6}, {0, 2, -3, -2.5f, 1.34f, 0.5f})}, 3});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0], u8({6}, {153, 255, 0, 26, 221, 179}));
  expect_tensor_near(r.value()[1], f32({}, {5.f / 255.f}), 1e-7, 0);
  expect_tensor_eq(r.value()[2], u8({}, {153}));
  // All positive: the range is widened to include 0, so the zero point is 0.
  r = run_op({"DynamicQuantizeLinear", "", 11, {}, {f32({2, 2}, {1, 2, 3, 5.1f})}, 3});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0], u8({2, 2}, {50, 100, 150, 255}));
  expect_tensor_eq(r.value()[2], u8({}, {0}));
  // A constant zero tensor: scale 1/255, everything at the zero point 0.
  r = run_op({"DynamicQuantizeLinear", "", 11, {}, {f32({3}, {0, 0, 0})}, 3});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0], u8({3}, {0, 0, 0}));
  expect_tensor_near(r.value()[1], f32({}, {1.f / 255.f}), 1e-7, 0);
}

TEST(DynamicQuantizeLinear, RejectsNonFloat32) {
  expect_error({"DynamicQuantizeLinear", "", 11, {}, {f16({1}, {1})}, 3}, {"float32", "float16"});
}

// ---- MatMulInteger ---------------------------------------------------------------------------

TEST(MatMulInteger, ZeroPointsPerTensorRowAndColumn) {
  const Tensor a = u8({2, 2}, {1, 2, 3, 4});
  const Tensor b = i8({2, 2}, {1, -1, 2, 0});
  // No zero points: plain product.
  expect_tensor_eq(run1({"MatMulInteger", "", 10, {}, {a, b}}), make<int32_t>({2, 2}, {5, -1, 11, -3}));
  // A - 1 = [[0, 1], [2, 3]]; B - [1, 0] per column = [[0, -1], [1, 0]].
  expect_tensor_eq(run1({"MatMulInteger", "", 10, {}, {a, b, u8({}, {1}), i8({2}, {1, 0})}}),
                   make<int32_t>({2, 2}, {1, 0, 3, -2}));
  // Per row of A: A - [1, 2] = [[0, 1], [1, 2]]; B's zero point absent (empty input).
  expect_tensor_eq(run1({"MatMulInteger", "", 10, {}, {a, b, u8({2}, {1, 2}), Tensor()}}),
                   make<int32_t>({2, 2}, {2, 0, 5, -1}));
  // N-D forms: [M, 1] for A and [1, N] for B.
  expect_tensor_eq(run1({"MatMulInteger", "", 10, {}, {a, b, u8({2, 1}, {1, 2}), i8({1, 2}, {1, 0})}}),
                   make<int32_t>({2, 2}, {1, 0, 2, -1}));
}

TEST(MatMulInteger, BroadcastVectorsAndOverflowWraps) {
  // A [2, 1, 2] x B [2, 2]: the batch broadcasts.
  expect_tensor_eq(run1({"MatMulInteger", "", 10, {}, {u8({2, 1, 2}, {1, 0, 0, 1}), u8({2, 2}, {1, 2, 3, 4})}}),
                   make<int32_t>({2, 1, 2}, {1, 2, 3, 4}));
  // 1-D A and B: a dot product of shape [].
  expect_tensor_eq(run1({"MatMulInteger", "", 10, {}, {u8({3}, {1, 2, 3}), u8({3}, {4, 5, 6})}}),
                   make<int32_t>({}, {32}));
  // 33026 * 255 * 255 = 2147515650 wraps past 2^31 - 1 (the spec lets 32-bit accumulation overflow).
  const int64_t k = 33026;
  const Tensor ones_a = u8({1, k}, std::vector<uint8_t>(static_cast<size_t>(k), 255));
  const Tensor ones_b = u8({k, 1}, std::vector<uint8_t>(static_cast<size_t>(k), 255));
  expect_tensor_eq(run1({"MatMulInteger", "", 10, {}, {ones_a, ones_b}}),
                   make<int32_t>({1, 1}, {static_cast<int32_t>(2147515650LL - (1LL << 32))}));
}

TEST(MatMulInteger, Errors) {
  const Tensor a = u8({2, 2}, {1, 2, 3, 4});
  expect_error_both({"MatMulInteger", "", 10, {}, {a, u8({3, 1}, {1, 2, 3})}},
                    {"inner dims differ", "[2, 2]", "[3, 1]"});
  expect_error_both({"MatMulInteger", "", 10, {}, {a, a, i8({}, {0})}}, {"a_zero_point is int8", "A is uint8"});
  expect_error_both({"MatMulInteger", "", 10, {}, {f32({1, 1}, {1}), a}}, {"int8 or uint8 A", "float32"});
  expect_error_both({"MatMulInteger", "", 10, {}, {a, a, u8({3}, {1, 2, 3})}},
                    {"a_zero_point uint8[3]", "per row of A"});
  expect_error_both({"MatMulInteger", "", 10, {}, {a, a, Tensor(), u8({2, 1}, {1, 2})}},
                    {"b_zero_point uint8[2, 1]", "column of B"});
}

// ---- QLinearMatMul ---------------------------------------------------------------------------

TEST(QLinearMatMul, RescalesRoundsHalfToEvenAndSaturates) {
  const Tensor one = f32({}, {1});
  // a - 0 = [[2, 4]], b - 1 = [[0], [2]]: acc 8; 8 * 0.5 * 1 / 2 = 2; + 10.
  expect_tensor_eq(run1({"QLinearMatMul",
                         "",
                         10,
                         {},
                         {u8({1, 2}, {2, 4}), f32({}, {0.5f}), u8({}, {0}), u8({2, 1}, {1, 3}), one, u8({}, {1}),
                          f32({}, {2}), u8({}, {10})}}),
                   u8({1, 1}, {12}));
  // b - 2 = 1: acc [5, 7, -100]; * 0.5 = [2.5, 3.5, -50] -> [2, 4, -50]; * 4 saturates -400.
  const Tensor a = i8({3, 1}, {5, 7, -100});
  expect_tensor_eq(run1({"QLinearMatMul",
                         "",
                         10,
                         {},
                         {a, f32({}, {0.5f}), i8({}, {0}), i8({1, 1}, {3}), one, i8({}, {2}), one, i8({}, {0})}}),
                   i8({3, 1}, {2, 4, -50}));
  expect_tensor_eq(run1({"QLinearMatMul",
                         "",
                         10,
                         {},
                         {a, f32({}, {4}), i8({}, {0}), i8({1, 1}, {3}), one, i8({}, {2}), one, i8({}, {0})}}),
                   i8({3, 1}, {20, 28, -128}));
}

TEST(QLinearMatMul, PerRowAndPerColumnScalesBatchedAndFloat16) {
  const Tensor one = f32({}, {1});
  // a [2, 1] per-row scales [1, 2]; b [1, 2] per-column scales [1, 3] and zero points [0, 1].
  // acc = [[4*2, 4*(5-1)], [6*2, 6*4]] = [[8, 16], [12, 24]]; times a_s * b_s = [[8, 48], [24, 144]].
  expect_tensor_eq(run1({"QLinearMatMul",
                         "",
                         10,
                         {},
                         {u8({2, 1}, {4, 6}), f32({2}, {1, 2}), u8({2}, {0, 0}), u8({1, 2}, {2, 5}), f32({2}, {1, 3}),
                          u8({2}, {0, 1}), one, u8({}, {0})}}),
                   u8({2, 2}, {8, 48, 24, 144}));
  // Batched a [2, 1, 2] with float16 scales (opset 21).
  const Tensor h1 = f16({1}, {1});
  expect_tensor_eq(run1({"QLinearMatMul",
                         "",
                         21,
                         {},
                         {i8({2, 1, 2}, {1, 2, 3, 4}), h1, i8({1}, {0}), i8({2, 1}, {1, 1}), f16({1}, {0.5f}),
                          i8({1}, {0}), h1, i8({1}, {0})}}),
                   i8({2, 1, 1}, {2, 4}));
}

TEST(QLinearMatMul, Errors) {
  const Tensor a = u8({1, 1}, {1});
  const Tensor s = f32({}, {1});
  const Tensor z = u8({}, {0});
  expect_error_both({"QLinearMatMul", "", 10, {}, {a, f16({}, {1}), z, a, s, z, s, z}},
                    {"opset 10", "a_scale of type float16"});
  expect_error_both({"QLinearMatMul", "", 21, {}, {a, f16({}, {1}), z, a, s, z, s, z}},
                    {"b_scale is float32", "a_scale is float16"});
  expect_error_both({"QLinearMatMul", "", 10, {}, {a, s, i8({}, {0}), a, s, z, s, z}},
                    {"a_zero_point is int8", "a is uint8"});
  expect_error_both({"QLinearMatMul", "", 10, {}, {a, s, z, a, s, z, s, u16({}, {0})}}, {"y_zero_point", "uint16"});
  expect_error_both({"QLinearMatMul", "", 10, {}, {a, f32({2}, {1, 1}), z, a, s, z, s, z}},
                    {"a_zero_point shape []", "a_scale shape [2]"});
  expect_error_both({"QLinearMatMul", "", 10, {}, {a, s, z, a, s, z, f32({2}, {1, 1}), u8({2}, {0, 0})}},
                    {"y_scale", "one element"});
}

// ---- ConvInteger -----------------------------------------------------------------------------

TEST(ConvInteger, PaddingStandsForTheZeroPoint) {
  // x - 1 = [[0, 1], [2, 3]]; a 1x1 kernel of 2 with pads 1 and stride 2 reads padding at three
  // of the four outputs: 0, not (0 - 1) * 2.
  expect_tensor_eq(run1({"ConvInteger",
                         "",
                         10,
                         {{"pads", attr_ints({1, 1, 1, 1})}, {"strides", attr_ints({2, 2})}},
                         {u8({1, 1, 2, 2}, {1, 2, 3, 4}), u8({1, 1, 1, 1}, {2}), u8({}, {1})}}),
                   make<int32_t>({1, 1, 2, 2}, {0, 0, 0, 6}));
  // 2x2 kernel of ones over [[0, 1, 2], [3, 4, 5], [6, 7, 8]].
  expect_tensor_eq(run1({"ConvInteger",
                         "",
                         10,
                         {},
                         {u8({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), i8({1, 1, 2, 2}, {1, 1, 1, 1}), u8({}, {1})}}),
                   make<int32_t>({1, 1, 2, 2}, {8, 12, 20, 24}));
}

TEST(ConvInteger, GroupsPerChannelZeroPointsDilationsAndAutoPad) {
  // group 2: channel 0 -> output 0, channel 1 -> output 1; w - [0, 1] = [1, 1].
  expect_tensor_eq(
      run1({"ConvInteger", "", 10, {{"group", attr_int(2)}}, {u8({1, 2, 1, 1}, {3, 5}), u8({2, 1, 1, 1}, {1, 2})}}),
      make<int32_t>({1, 2, 1, 1}, {3, 10}));
  expect_tensor_eq(run1({"ConvInteger",
                         "",
                         10,
                         {{"group", attr_int(2)}},
                         {u8({1, 2, 1, 1}, {3, 5}), u8({2, 1, 1, 1}, {1, 2}), Tensor(), u8({2}, {0, 1})}}),
                   make<int32_t>({1, 2, 1, 1}, {3, 5}));
  // 1-D, SAME_UPPER with a kernel of 2: the one padded position goes at the end.
  expect_tensor_eq(run1({"ConvInteger",
                         "",
                         10,
                         {{"auto_pad", attr_string("SAME_UPPER")}},
                         {i8({1, 1, 3}, {1, 2, 3}), i8({1, 1, 2}, {1, 1})}}),
                   make<int32_t>({1, 1, 3}, {3, 5, 3}));
  // dilation 2: taps 0 and 2.
  expect_tensor_eq(run1({"ConvInteger",
                         "",
                         10,
                         {{"dilations", attr_ints({2})}},
                         {i8({1, 1, 4}, {1, 2, 3, 4}), i8({1, 1, 2}, {1, -1})}}),
                   make<int32_t>({1, 1, 2}, {-2, -2}));
}

TEST(ConvInteger, Errors) {
  const Tensor x = u8({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  expect_error_both({"ConvInteger", "", 10, {}, {x, u8({1, 1, 1, 1}, {1})}}, {"X has 2 channels", "expects 1"});
  expect_error_both({"ConvInteger", "", 10, {}, {x, u8({1, 2, 1, 1}, {1, 1}), u8({2}, {1, 1})}},
                    {"x_zero_point uint8[2]", "one element"});
  expect_error_both({"ConvInteger", "", 10, {}, {x, u8({2, 2, 1, 1}, {1, 1, 1, 1}), Tensor(), u8({3}, {1, 1, 1})}},
                    {"w_zero_point uint8[3]", "per output channel (2"});
  expect_error_both({"ConvInteger", "", 10, {}, {f32({1, 1, 1, 1}, {1}), u8({1, 1, 1, 1}, {1})}},
                    {"int8 or uint8 x", "float32"});
  expect_error_both({"ConvInteger", "", 10, {{"kernel_shape", attr_ints({2, 2})}}, {x, u8({1, 2, 1, 1}, {1, 1})}},
                    {"kernel_shape [2, 2]", "does not match W"});
  expect_error({"ConvInteger", "", 10, {{"group", attr_int(0)}}, {x, u8({1, 2, 1, 1}, {1, 1})}},
               {"group must be positive"});
}

// ---- QLinearConv -----------------------------------------------------------------------------

TEST(QLinearConv, RescalesWithBiasAndRoundsHalfToEven) {
  const Tensor x = u8({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor w = i8({1, 1, 2, 2}, {1, 1, 1, 1});
  // acc [[8, 12], [20, 24]] * 0.5 * 1 / 2 = [2, 3, 5, 6].
  const std::vector<Tensor> in = {x,           f32({}, {0.5f}), u8({}, {1}), w, f32({}, {1}),
                                  i8({}, {0}), f32({}, {2}),    u8({}, {0})};
  expect_tensor_eq(run1({"QLinearConv", "", 10, {}, in}), u8({1, 1, 2, 2}, {2, 3, 5, 6}));
  // + bias 2: [10, 14, 22, 26] * 0.25 = [2.5, 3.5, 5.5, 6.5] -> [2, 4, 6, 6].
  std::vector<Tensor> with_bias = in;
  with_bias.push_back(make<int32_t>({1}, {2}));
  expect_tensor_eq(run1({"QLinearConv", "", 10, {}, with_bias}), u8({1, 1, 2, 2}, {2, 4, 6, 6}));
}

TEST(QLinearConv, PerChannelWeightsAndInt8Saturation) {
  // Two output channels of a 1x1 kernel: weights [1, -1] with scales [1, 4] and zero points [0, 0].
  const std::vector<Tensor> in = {i8({1, 1, 1, 2}, {100, -3}),
                                  f32({}, {1}),
                                  i8({}, {0}),
                                  i8({2, 1, 1, 1}, {1, -1}),
                                  f32({2}, {1, 4}),
                                  i8({2}, {0, 0}),
                                  f32({}, {1}),
                                  i8({}, {5})};
  // channel 0: [100, -3] + 5 = [105, 2]; channel 1: [-400, 12] + 5 -> [-128, 17].
  expect_tensor_eq(run1({"QLinearConv", "", 10, {}, in}), i8({1, 2, 1, 2}, {105, 2, -128, 17}));
}

TEST(QLinearConv, Errors) {
  const Tensor x = u8({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor w = u8({2, 1, 1, 1}, {1, 1});
  const Tensor s = f32({}, {1});
  const Tensor z = u8({}, {0});
  expect_error_both({"QLinearConv", "", 10, {}, {x, f32({2}, {1, 1}), z, w, s, z, s, z}},
                    {"x_scale float32[2]", "one element"});
  expect_error_both({"QLinearConv", "", 10, {}, {x, s, z, w, f32({3}, {1, 1, 1}), u8({3}, {0, 0, 0}), s, z}},
                    {"w_scale float32[3]", "per output channel (2)"});
  expect_error_both({"QLinearConv", "", 10, {}, {x, s, z, w, s, z, s, z, make<int32_t>({3}, {0, 0, 0})}},
                    {"B int32[3]", "[2]"});
  expect_error_both({"QLinearConv", "", 10, {}, {x, s, z, w, s, i8({}, {0}), s, z}},
                    {"w_zero_point is int8", "w is uint8"});
  expect_error_both({"QLinearConv", "", 10, {}, {x, s, z, w, s, z, s, z, f32({2}, {0, 0})}}, {"int32 B", "float32"});
}

// FusedQLinearConv (the QDQ pass's channels-last QLinearConv): run_op computes it twice, with
// its inputs as graph inputs (the reference arithmetic between permutations) and as constants
// (the int8 kernel where the CPU has AVX512_VNNI), and requires the same codes; both must also be
// QLinearConv's on the channels-first input, with the Relu as a floor at y's zero point.
TEST(FusedQLinearConv, ChannelsLastQLinearConvWithRelu) {
  const int64_t h = 5, w = 6, c = 7, m = 9;
  std::vector<uint8_t> xv(static_cast<size_t>(h * w * c));
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<uint8_t>(i * 37 % 256);
  std::vector<int8_t> wv(static_cast<size_t>(m * c * 9));
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<int8_t>(static_cast<int>(i * 53 % 255) - 127);
  std::vector<float> scales;
  std::vector<int32_t> bias;
  for (int64_t o = 0; o < m; ++o) {
    scales.push_back(0.01f * static_cast<float>(o + 1));
    bias.push_back(static_cast<int32_t>(o * 311 - 1200));
  }
  const Tensor x_nhwc = u8({1, h, w, c}, xv);
  Tensor x_nchw = Tensor::empty(DType::kUInt8, {1, c, h, w});
  for (int64_t y = 0; y < h; ++y)
    for (int64_t xx = 0; xx < w; ++xx)
      for (int64_t ch = 0; ch < c; ++ch)
        x_nchw.data<uint8_t>()[(ch * h + y) * w + xx] = xv[static_cast<size_t>((y * w + xx) * c + ch)];
  const Tensor y_zp = u8({}, {40});
  std::vector<Tensor> rest = {
      f32({}, {0.05f}), u8({}, {120}), i8({m, c, 3, 3}, wv),    f32({m}, scales), i8({m}, std::vector<int8_t>(m, 0)),
      f32({}, {0.5f}),  y_zp,          make<int32_t>({m}, bias)};
  std::vector<Tensor> nhwc_in = {x_nhwc}, nchw_in = {x_nchw};
  nhwc_in.insert(nhwc_in.end(), rest.begin(), rest.end());
  nchw_in.insert(nchw_in.end(), rest.begin(), rest.end());
  const std::map<std::string, ir::Attribute> attrs = {{"pads", attr_ints({1, 1, 1, 1})}};
  auto fused_attrs = attrs;
  fused_attrs["activation"] = attr_string("Relu");
  const Tensor got = run1({"FusedQLinearConv", "com.hipinfer", 1, fused_attrs, nhwc_in});
  const Tensor ref = run1({"QLinearConv", "", 10, attrs, nchw_in});
  ASSERT_EQ(got.shape(), (Shape{1, h, w, m}));
  int floored = 0;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t xx = 0; xx < w; ++xx)
      for (int64_t o = 0; o < m; ++o) {
        const uint8_t r = ref.data<uint8_t>()[(o * h + y) * w + xx];
        floored += r < 40;
        ASSERT_EQ(got.data<uint8_t>()[(y * w + xx) * m + o], std::max<uint8_t>(r, 40)) << y << "," << xx << "," << o;
      }
  EXPECT_GT(floored, 0) << "the data should reach below y's zero point, where the Relu acts";
}

// QLinearAdd (the QDQ pass's quantized Add) gives the codes of DequantizeLinear, Add and
// QuantizeLinear run one after the other: same shapes and types (the vectorised kernel), and a
// broadcast with int8 and uint8 mixed (the op by op path).
TEST(QLinearAdd, SameCodesAsTheThreeOps) {
  auto three_ops = [](const Tensor& a, float sa, const Tensor& za, const Tensor& b, float sb, const Tensor& zb,
                      float sy, const Tensor& zy) {
    const Tensor fa = run1({"DequantizeLinear", "", 13, {}, {a, f32({}, {sa}), za}});
    const Tensor fb = run1({"DequantizeLinear", "", 13, {}, {b, f32({}, {sb}), zb}});
    return run1({"QuantizeLinear", "", 13, {}, {run1({"Add", "", 14, {}, {fa, fb}}), f32({}, {sy}), zy}});
  };
  std::vector<uint8_t> av(3 * 5 * 70), bv(av.size());
  for (size_t i = 0; i < av.size(); ++i) {
    av[i] = static_cast<uint8_t>(i * 29 % 256);
    bv[i] = static_cast<uint8_t>(i * 71 % 256);
  }
  const Tensor a = u8({3, 5, 70}, av), b = u8({3, 5, 70}, bv);
  const Tensor za = u8({}, {128}), zb = u8({}, {3}), zy = u8({}, {60});
  const Tensor same = run1({"QLinearAdd",
                            "com.hipinfer",
                            1,
                            {},
                            {a, f32({}, {0.037f}), za, b, f32({}, {0.011f}), zb, f32({}, {0.05f}), zy}});
  expect_tensor_eq(same, three_ops(a, 0.037f, za, b, 0.011f, zb, 0.05f, zy));
  std::vector<int8_t> cv(70);
  for (size_t i = 0; i < cv.size(); ++i) cv[i] = static_cast<int8_t>(static_cast<int>(i * 13 % 255) - 127);
  const Tensor c = i8({70}, cv), zc = i8({}, {-5});
  const Tensor mixed = run1(
      {"QLinearAdd", "com.hipinfer", 1, {}, {a, f32({}, {0.037f}), za, c, f32({}, {0.02f}), zc, f32({}, {0.05f}), zy}});
  expect_tensor_eq(mixed, three_ops(a, 0.037f, za, c, 0.02f, zc, 0.05f, zy));
  expect_error_both(
      {"QLinearAdd", "com.hipinfer", 1, {}, {a, f32({2}, {1, 1}), za, b, f32({}, {1}), zb, f32({}, {1}), zy}},
      {"A_scale float32[2]", "one element"});
}

TEST(FusedQLinearConv, Errors) {
  const Tensor s = f32({}, {1});
  const Tensor z = u8({}, {0});
  const Tensor wt = i8({2, 3, 1, 1}, {1, 1, 1, 1, 1, 1});
  expect_error({"FusedQLinearConv",
                "com.hipinfer",
                1,
                {{"activation", attr_string("Tanh")}},
                {u8({1, 2, 2, 3}, std::vector<uint8_t>(12, 1)), s, z, wt, s, i8({}, {0}), s, z}},
               {"activation must be Relu or absent", "Tanh"});
  expect_error_both(
      {"FusedQLinearConv", "com.hipinfer", 1, {}, {u8({2, 3}, {1, 2, 3, 4, 5, 6}), s, z, wt, s, i8({}, {0}), s, z}},
      {"4-D channels-last x", "uint8[2, 3]"});
}

}  // namespace
}  // namespace hi::test
