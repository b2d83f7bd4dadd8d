// The low-precision types: minifloat encodings against hand-computed bit patterns, Cast and
// CastLike to and from them (saturate, round_mode), BitCast, sub-byte packing in TensorProto
// files, and data-movement ops on tensors of these types.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/low_precision.h"
#include "hipinfer/tensor_proto.h"
#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// A tensor of a one-byte type from its in-memory bytes (minifloat codes or sub-byte values).
Tensor bytes_of(DType t, const Shape& shape, const std::vector<int>& v) {
  Tensor x = Tensor::empty(t, shape);
  EXPECT_EQ(static_cast<int64_t>(v.size()), x.numel()) << "test data size";
  for (int64_t i = 0; i < x.numel() && i < static_cast<int64_t>(v.size()); ++i)
    x.data<uint8_t>()[i] = static_cast<uint8_t>(v[static_cast<size_t>(i)]);
  return x;
}

std::vector<int> bytes(const Tensor& t) {
  std::vector<int> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.data<uint8_t>()[i]);
  return v;
}

OpCase cast(const Tensor& x, DType to, int64_t opset = 25, std::map<std::string, ir::Attribute> extra = {}) {
  extra["to"] = attr_int(static_cast<int64_t>(to));
  return {"Cast", "", opset, extra, {x}};
}

Tensor run_ok(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

TEST(Minifloat, E4M3FN) {
  using F = Float8E4M3FN;
  EXPECT_EQ(F::from_double(1.0), 0x38);
  EXPECT_EQ(F::from_double(-2.0), 0xc0);
  EXPECT_EQ(F::from_double(448.0), 0x7e);
  EXPECT_EQ(F::from_double(464.0), 0x7e);         // halfway to 480: ties to even (448)
  EXPECT_EQ(F::from_double(465.0, false), 0x7f);  // rounds past the max: NaN without saturation
  EXPECT_EQ(F::from_double(1e6, true), 0x7e);
  EXPECT_EQ(F::from_double(-1e6, true), 0xfe);
  EXPECT_EQ(F::from_double(kInf, true), 0x7e);
  EXPECT_EQ(F::from_double(kInf, false), 0x7f);
  EXPECT_EQ(F::from_double(-kInf, false), 0xff);
  EXPECT_EQ(F::from_double(kNaN), 0x7f);
  EXPECT_EQ(F::from_double(-0.0), 0x80);
  EXPECT_EQ(F::from_double(std::ldexp(1.0, -9)), 0x01);   // smallest subnormal
  EXPECT_EQ(F::from_double(std::ldexp(1.0, -10)), 0x00);  // half of it: ties to even (0)
  EXPECT_EQ(F::from_double(std::ldexp(3.0, -11)), 0x01);
  EXPECT_EQ(F::from_double(0.3), 0x2a);  // 0.3 = 1.2 * 2^-2 -> 1.25 * 2^-2 (mantissa 010)
  EXPECT_EQ(F::to_float(0x2a), 0.3125f);
  EXPECT_EQ(F::to_float(0x7e), 448.f);
  EXPECT_EQ(F::to_float(0x01), std::ldexp(1.f, -9));
  EXPECT_TRUE(std::isnan(F::to_float(0x7f)));
  EXPECT_TRUE(std::isnan(F::to_float(0xff)));
  EXPECT_EQ(F::to_float(0x78), 256.f);  // exponent all ones is still a number (no inf)
}

TEST(Minifloat, E4M3FNUZ) {
  using F = Float8E4M3FNUZ;
  EXPECT_EQ(F::from_double(1.0), 0x40);
  EXPECT_EQ(F::from_double(-1.0), 0xc0);
  EXPECT_EQ(F::from_double(240.0), 0x7f);
  EXPECT_EQ(F::from_double(1000.0), 0x7f);
  EXPECT_EQ(F::from_double(1000.0, false), 0x80);  // the only NaN
  EXPECT_EQ(F::from_double(-kInf, true), 0xff);
  EXPECT_EQ(F::from_double(-0.0), 0x00);  // no negative zero
  EXPECT_EQ(F::from_double(-std::ldexp(1.0, -20)), 0x00);
  EXPECT_EQ(F::from_double(kNaN), 0x80);
  EXPECT_EQ(F::from_double(std::ldexp(1.0, -10)), 0x01);
  EXPECT_TRUE(std::isnan(F::to_float(0x80)));
  EXPECT_EQ(F::to_float(0x7f), 240.f);
  EXPECT_EQ(F::to_float(0xff), -240.f);
}

TEST(Minifloat, E5M2) {
  using F = Float8E5M2;
  EXPECT_EQ(F::from_double(1.0), 0x3c);
  EXPECT_EQ(F::from_double(57344.0), 0x7b);
  EXPECT_EQ(F::from_double(60000.0, false), 0x7b);  // below the halfway point 61440
  EXPECT_EQ(F::from_double(61440.0, false), 0x7c);  // ties to even: 65536, so infinity
  EXPECT_EQ(F::from_double(61440.0, true), 0x7b);
  EXPECT_EQ(F::from_double(kInf, false), 0x7c);
  EXPECT_EQ(F::from_double(-kInf, false), 0xfc);
  EXPECT_EQ(F::from_double(-kInf, true), 0xfb);
  EXPECT_EQ(F::from_double(std::ldexp(1.0, -16)), 0x01);
  EXPECT_EQ(F::to_float(0x7c), kInf);
  EXPECT_EQ(F::to_float(0xfc), -kInf);
  EXPECT_TRUE(std::isnan(F::to_float(0x7d)));
  EXPECT_TRUE(std::isnan(F::to_float(F::from_double(kNaN))));
  EXPECT_EQ(F::to_float(0x01), std::ldexp(1.f, -16));
}

TEST(Minifloat, E5M2FNUZ) {
  using F = Float8E5M2FNUZ;
  EXPECT_EQ(F::from_double(1.0), 0x40);
  EXPECT_EQ(F::from_double(57344.0), 0x7f);
  EXPECT_EQ(F::from_double(kInf, false), 0x80);
  EXPECT_EQ(F::from_double(kInf, true), 0x7f);
  EXPECT_EQ(F::from_double(-0.0), 0x00);
  EXPECT_TRUE(std::isnan(F::to_float(0x80)));
  EXPECT_EQ(F::to_float(0x01), std::ldexp(1.f, -17));
}

TEST(Minifloat, Float4E2M1) {
  using F = Float4E2M1;
  const float values[8] = {0.f, 0.5f, 1.f, 1.5f, 2.f, 3.f, 4.f, 6.f};
  for (int code = 0; code < 8; ++code) {
    EXPECT_EQ(F::to_float(static_cast<uint8_t>(code)), values[code]) << code;
    EXPECT_EQ(F::to_float(static_cast<uint8_t>(code | 8)), -values[code]) << code;
    EXPECT_EQ(F::from_double(values[code]), code) << code;
  }
  EXPECT_EQ(F::from_double(5.0), 0x6);           // tie between 4 and 6: even mantissa (4)
  EXPECT_EQ(F::from_double(2.5), 0x4);           // tie between 2 and 3
  EXPECT_EQ(F::from_double(0.25), 0x0);          // tie between 0 and 0.5
  EXPECT_EQ(F::from_double(100.0, false), 0x7);  // no inf or NaN: always saturates
  EXPECT_EQ(F::from_double(-kInf), 0xf);
  EXPECT_EQ(F::from_double(-0.0), 0x8);
  EXPECT_EQ(F::from_double(kNaN), 0x0);  // no NaN code; the ONNX data maps it to (-)0
}

TEST(Minifloat, E8M0) {
  using F = Float8E8M0;
  using R = E8M0Rounding;
  EXPECT_EQ(F::from_double(1.0), 0x7f);
  EXPECT_EQ(F::from_double(0.124), 0x7c);  // up: 0.125
  EXPECT_EQ(F::from_double(1.1, true, R::kUp), 0x80);
  EXPECT_EQ(F::from_double(1.1, true, R::kDown), 0x7f);
  EXPECT_EQ(F::from_double(1.1, true, R::kNearest), 0x7f);
  EXPECT_EQ(F::from_double(1.5, true, R::kNearest), 0x80);  // ties round up
  EXPECT_EQ(F::from_double(0.0), 0x00);
  EXPECT_EQ(F::from_double(kNaN), 0xff);
  EXPECT_EQ(F::from_double(kInf), 0xff);
  EXPECT_EQ(F::from_double(std::ldexp(1.5, 127), true), 0xfe);   // saturates at 2^127
  EXPECT_EQ(F::from_double(std::ldexp(1.5, 127), false), 0xff);  // else NaN
  EXPECT_EQ(F::to_float(0x7f), 1.f);
  EXPECT_EQ(F::to_float(0x00), std::ldexp(1.f, -127));
  EXPECT_EQ(F::to_float(0xfe), std::ldexp(1.f, 127));
  EXPECT_TRUE(std::isnan(F::to_float(0xff)));
}

TEST(Minifloat, EveryCodeRoundTrips) {
  for (int b = 0; b < 256; ++b) {
    const auto code = static_cast<uint8_t>(b);
    const float e4 = Float8E4M3FN::to_float(code), e5 = Float8E5M2::to_float(code);
    if (!std::isnan(e4)) {
      EXPECT_EQ(Float8E4M3FN::from_double(e4), code) << b;
    }
    if (!std::isnan(e5)) {
      EXPECT_EQ(Float8E5M2::from_double(e5, false), code) << b;
    }
    const float e4uz = Float8E4M3FNUZ::to_float(code), e5uz = Float8E5M2FNUZ::to_float(code);
    if (!std::isnan(e4uz)) {
      EXPECT_EQ(Float8E4M3FNUZ::from_double(e4uz), code) << b;
    }
    if (!std::isnan(e5uz)) {
      EXPECT_EQ(Float8E5M2FNUZ::from_double(e5uz), code) << b;
    }
    // E8M0 code 0 is 2^-127, a float32 subnormal, which rounding 'up' (on the float32 bits, as
    // the ONNX reference does) moves to 2^-126; every other code is exact.
    if (b > 0 && b < 255) {
      EXPECT_EQ(Float8E8M0::from_double(Float8E8M0::to_float(code)), code) << b;
    }
  }
}

TEST(SubByte, PackAndUnpack) {
  const std::vector<uint8_t> int4 = {0xff, 0x02, 0xf8};  // -1, 2, -8
  std::vector<uint8_t> packed(2), back(3);
  EXPECT_EQ(packed_size(DType::kInt4, 3), 2);
  pack_sub_byte(DType::kInt4, int4.data(), 3, packed.data());
  EXPECT_EQ(packed, (std::vector<uint8_t>{0x2f, 0x08}));  // first element in the low nibble
  unpack_sub_byte(DType::kInt4, packed.data(), 3, back.data());
  EXPECT_EQ(back, int4);
  const std::vector<uint8_t> uint2 = {1, 2, 3, 0, 3};
  std::vector<uint8_t> p2(2), b2(5);
  EXPECT_EQ(packed_size(DType::kUInt2, 5), 2);
  // A forged element count near 2^63 (the fuzzer's find) gives its byte count, no overflow.
  EXPECT_EQ(packed_size(DType::kInt4, std::numeric_limits<int64_t>::max()),
            std::numeric_limits<int64_t>::max() / 2 + 1);
  pack_sub_byte(DType::kUInt2, uint2.data(), 5, p2.data());
  EXPECT_EQ(p2, (std::vector<uint8_t>{0x39, 0x03}));
  unpack_sub_byte(DType::kInt2, p2.data(), 5, b2.data());
  EXPECT_EQ(b2, (std::vector<uint8_t>{1, 0xfe, 0xff, 0, 0xff}));  // int2: 2 -> -2, 3 -> -1
  EXPECT_EQ(wrap_to_signed_bits(9, 4), -7);
  EXPECT_EQ(wrap_to_unsigned_bits(-1, 4), 15);
}

// A TensorProto file written byte by byte: dims (field 1), data_type (2), then `payload`.
std::string write_proto(const std::string& file, std::vector<uint8_t> dims_and_type,
                        const std::vector<uint8_t>& payload) {
  const std::string path = ::testing::TempDir() + file;
  dims_and_type.insert(dims_and_type.end(), payload.begin(), payload.end());
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(dims_and_type.data()), static_cast<std::streamsize>(dims_and_type.size()));
  return path;
}

TEST(SubByte, TensorProtoFilesAreUnpacked) {
  // int4[3] in raw_data (field 9): 0x2f 0x08 -> -1, 2, -8.
  auto raw = read_tensor_proto(write_proto("int4_raw.pb", {0x08, 0x03, 0x10, 22}, {0x4a, 0x02, 0x2f, 0x08}));
  ASSERT_TRUE(raw.is_ok()) << raw.status().to_string();
  EXPECT_EQ(raw.value().dtype(), DType::kInt4);
  EXPECT_EQ(bytes(raw.value()), (std::vector<int>{0xff, 0x02, 0xf8}));
  // uint4[3] in int32_data (field 5, packed): one packed byte per entry.
  auto i32 = read_tensor_proto(write_proto("uint4_i32.pb", {0x08, 0x03, 0x10, 21}, {0x2a, 0x02, 0x2f, 0x08}));
  ASSERT_TRUE(i32.is_ok()) << i32.status().to_string();
  EXPECT_EQ(bytes(i32.value()), (std::vector<int>{0x0f, 0x02, 0x08}));
  // float8e4m3fn[2]: one byte each.
  auto f8 = read_tensor_proto(write_proto("f8.pb", {0x08, 0x02, 0x10, 17}, {0x4a, 0x02, 0x38, 0x7e}));
  ASSERT_TRUE(f8.is_ok()) << f8.status().to_string();
  EXPECT_EQ(f8.value().as_double(0), 1.0);
  EXPECT_EQ(f8.value().as_double(1), 448.0);
  // int4[3] needs 2 packed bytes, not 3.
  auto bad = read_tensor_proto(write_proto("int4_bad.pb", {0x08, 0x03, 0x10, 22}, {0x4a, 0x03, 0x2f, 0x08, 0x00}));
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("2 packed bytes"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("holds 3 bytes"), std::string::npos) << bad.status().message();
}

TEST(CastLowPrecision, FloatToFloat8HonoursSaturate) {
  Tensor x = f32({5}, {1.f, 1000.f, -kInf, kNaN, -0.f});
  EXPECT_EQ(bytes(run_ok(cast(x, DType::kFloat8E4M3FN))), (std::vector<int>{0x38, 0x7e, 0xfe, 0x7f, 0x80}));
  EXPECT_EQ(bytes(run_ok(cast(x, DType::kFloat8E4M3FN, 25, {{"saturate", attr_int(0)}}))),
            (std::vector<int>{0x38, 0x7f, 0xff, 0x7f, 0x80}));
  EXPECT_EQ(bytes(run_ok(cast(x, DType::kFloat8E5M2, 19, {{"saturate", attr_int(0)}}))),
            (std::vector<int>{0x3c, 0x64, 0xfc, 0x7f, 0x80}));  // 1000 rounds to 1024 = 2^10
}

TEST(CastLowPrecision, Float8ToOtherTypes) {
  Tensor x = bytes_of(DType::kFloat8E4M3FN, {2, 2}, {0x38, 0xc0, 0x7e, 0x7f});  // 1, -2, 448, NaN
  Tensor f = run_ok(cast(x, DType::kFloat32));
  EXPECT_EQ(f.data<float>()[0], 1.f);
  EXPECT_EQ(f.data<float>()[1], -2.f);
  EXPECT_EQ(f.data<float>()[2], 448.f);
  EXPECT_TRUE(std::isnan(f.data<float>()[3]));
  Tensor h = run_ok(cast(x, DType::kFloat16));
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[2]), 448.f);
  expect_tensor_eq(run_ok(cast(bytes_of(DType::kFloat8E5M2, {2}, {0x3c, 0xc0}), DType::kInt32)), i32({2}, {1, -2}));
  expect_tensor_eq(run_ok(cast(bytes_of(DType::kFloat8E4M3FN, {2}, {0x38, 0x7e}), DType::kString)),
                   strs({2}, {"1", "448"}));
  // float8 to float8 goes through the value: 448 = 1.75 * 2^8 is exact in E5M2FNUZ.
  EXPECT_EQ(bytes(run_ok(cast(bytes_of(DType::kFloat8E4M3FN, {2}, {0x38, 0x7e}), DType::kFloat8E5M2FNUZ))),
            (std::vector<int>{0x40, 0x63}));
  EXPECT_EQ(bytes(run_ok(cast(strs({2}, {"1", "-1e9"}), DType::kFloat8E4M3FNUZ))), (std::vector<int>{0x40, 0xff}));
}

TEST(CastLowPrecision, SubByteIntegersWrap) {
  Tensor x = f32({6}, {-9.f, 8.f, 1.9f, -1.9f, kNaN, 15.f});
  expect_tensor_eq(run_ok(cast(x, DType::kInt4)), bytes_of(DType::kInt4, {6}, {7, 0xf8, 1, 0xff, 0, 0xff}));
  EXPECT_EQ(bytes(run_ok(cast(x, DType::kUInt4))), (std::vector<int>{7, 8, 1, 15, 0, 15}));
  EXPECT_EQ(bytes(run_ok(cast(i64({3}, {(int64_t{1} << 40) + 3, -3, 5}), DType::kInt2))),
            (std::vector<int>{0xff, 1, 1}));
  EXPECT_EQ(bytes(run_ok(cast(i64({2}, {5, -1}), DType::kUInt2))), (std::vector<int>{1, 3}));
  expect_tensor_eq(run_ok(cast(bytes_of(DType::kInt4, {3}, {0xf8, 7, 0xff}), DType::kFloat32)),
                   f32({3}, {-8.f, 7.f, -1.f}));
  expect_tensor_eq(run_ok(cast(bytes_of(DType::kUInt4, {2}, {15, 3}), DType::kInt8)), make<int8_t>({2}, {15, 3}));
  EXPECT_EQ(bytes(run_ok(cast(bytes_of(DType::kInt4, {2}, {0xf8, 7}), DType::kUInt4))), (std::vector<int>{8, 7}));
  EXPECT_EQ(bytes(run_ok(cast(bools({2}, {1, 0}), DType::kInt4))), (std::vector<int>{1, 0}));
  EXPECT_EQ(bytes(run_ok(cast(f32({3}, {1.f, 7.f, -0.5f}), DType::kFloat4E2M1))), (std::vector<int>{2, 7, 9}));
}

TEST(CastLowPrecision, E8M0RoundModes) {
  Tensor x = f32({3}, {1.1f, 1.5f, 4.f});
  EXPECT_EQ(bytes(run_ok(cast(x, DType::kFloat8E8M0))), (std::vector<int>{0x80, 0x80, 0x81}));
  EXPECT_EQ(bytes(run_ok(cast(x, DType::kFloat8E8M0, 25, {{"round_mode", attr_string("down")}}))),
            (std::vector<int>{0x7f, 0x7f, 0x81}));
  EXPECT_EQ(bytes(run_ok(cast(x, DType::kFloat8E8M0, 25, {{"round_mode", attr_string("nearest")}}))),
            (std::vector<int>{0x7f, 0x80, 0x81}));
  auto bad = run_op_once(cast(x, DType::kFloat8E8M0, 25, {{"round_mode", attr_string("sideways")}}), false);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("sideways"), std::string::npos) << bad.status().message();
}

TEST(CastLowPrecision, CastLikeTakesSaturate) {
  OpCase c{
      "CastLike", "", 19, {{"saturate", attr_int(0)}}, {f32({2}, {1.f, 1e6f}), bytes_of(DType::kFloat8E5M2, {1}, {0})}};
  Tensor y = run_ok(c);
  EXPECT_EQ(y.dtype(), DType::kFloat8E5M2);
  EXPECT_EQ(bytes(y), (std::vector<int>{0x3c, 0x7c}));
  c.attrs.erase("saturate");
  EXPECT_EQ(bytes(run_ok(c)), (std::vector<int>{0x3c, 0x7b}));
}

OpCase bit_cast(const Tensor& x, DType to) {
  return {"BitCast", "", 26, {{"to", attr_int(static_cast<int64_t>(to))}}, {x}};
}

TEST(BitCast, ReinterpretsBits) {
  expect_tensor_eq(run_ok(bit_cast(f32({2}, {1.f, -2.f}), DType::kInt32)),
                   i32({2}, {0x3f800000, static_cast<int32_t>(0xc0000000u)}));
  expect_tensor_eq(run_ok(bit_cast(make<uint16_t>({1}, {0xffff}), DType::kInt16)), make<int16_t>({1}, {-1}));
  expect_tensor_eq(run_ok(bit_cast(make<uint8_t>({3}, {0, 1, 2}), DType::kBool)), bools({3}, {0, 1, 1}));
  EXPECT_EQ(bytes(run_ok(bit_cast(make<uint8_t>({2}, {0x38, 0xff}), DType::kFloat8E4M3FN))),
            (std::vector<int>{0x38, 0xff}));
  // Sub-byte types: the 4-bit pattern is kept, its in-memory form follows the target type.
  EXPECT_EQ(bytes(run_ok(bit_cast(bytes_of(DType::kInt4, {2}, {0xff, 0xf8}), DType::kUInt4))),
            (std::vector<int>{15, 8}));
  EXPECT_EQ(bytes(run_ok(bit_cast(bytes_of(DType::kFloat4E2M1, {2}, {0x9, 0x7}), DType::kInt4))),
            (std::vector<int>{0xf9, 7}));
  EXPECT_EQ(bytes(run_ok(bit_cast(bytes_of(DType::kUInt2, {2}, {3, 1}), DType::kInt2))), (std::vector<int>{0xff, 1}));
}

TEST(BitCast, Errors) {
  auto width = run_op_once(bit_cast(f32({1}, {1.f}), DType::kInt64), false);
  ASSERT_FALSE(width.is_ok());
  EXPECT_NE(width.status().message().find("float32 (32 bits) to int64 (64 bits)"), std::string::npos)
      << width.status().message();
  auto sub = run_op_once(bit_cast(bytes_of(DType::kInt4, {1}, {1}), DType::kUInt8), false);
  ASSERT_FALSE(sub.is_ok());
  EXPECT_NE(sub.status().message().find("int4 (4 bits)"), std::string::npos) << sub.status().message();
  auto str = run_op_once(bit_cast(strs({1}, {"a"}), DType::kUInt8), false);
  ASSERT_FALSE(str.is_ok());
  EXPECT_NE(str.status().message().find("string"), std::string::npos) << str.status().message();
  auto to_str = run_op_once(bit_cast(f32({1}, {1.f}), DType::kString), false);
  ASSERT_FALSE(to_str.is_ok());
  EXPECT_NE(to_str.status().message().find("opset 26"), std::string::npos) << to_str.status().message();
  auto missing = run_op_once({"BitCast", "", 26, {}, {f32({1}, {1.f})}}, false);
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.status().message().find("'to'"), std::string::npos) << missing.status().message();
}

TEST(LowPrecisionDataMovement, TransposeReshapeIdentityConcat) {
  Tensor f8 = bytes_of(DType::kFloat8E5M2, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor t = run_ok({"Transpose", "", 21, {{"perm", attr_ints({1, 0})}}, {f8}});
  EXPECT_EQ(t.dtype(), DType::kFloat8E5M2);
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(bytes(t), (std::vector<int>{1, 4, 2, 5, 3, 6}));
  Tensor i4 = bytes_of(DType::kInt4, {2, 2}, {0xf8, 7, 0xff, 0});
  Tensor r = run_ok({"Reshape", "", 21, {}, {i4, i64({1}, {4})}});
  EXPECT_EQ(r.shape(), (Shape{4}));
  EXPECT_EQ(bytes(r), (std::vector<int>{0xf8, 7, 0xff, 0}));
  expect_tensor_eq(run_ok({"Identity", "", 21, {}, {i4}}), i4);
  Tensor c = run_ok({"Concat", "", 13, {{"axis", attr_int(0)}}, {i4, i4}});
  EXPECT_EQ(c.shape(), (Shape{4, 2}));
  EXPECT_EQ(bytes(c), (std::vector<int>{0xf8, 7, 0xff, 0, 0xf8, 7, 0xff, 0}));
  expect_tensor_eq(run_ok({"Shape", "", 21, {}, {f8}}), i64({2}, {2, 3}));
  expect_tensor_eq(run_ok({"Size", "", 21, {}, {f8}}), make<int64_t>({}, {6}));
  Tensor flat = run_ok({"Flatten", "", 21, {{"axis", attr_int(0)}}, {f8}});
  EXPECT_EQ(flat.shape(), (Shape{1, 6}));
  Tensor u4 = bytes_of(DType::kUInt4, {1, 3}, {1, 15, 8});
  Tensor sq = run_ok({"Squeeze", "", 21, {}, {u4, i64({1}, {0})}});
  EXPECT_EQ(sq.shape(), (Shape{3}));
  EXPECT_EQ(bytes(sq), (std::vector<int>{1, 15, 8}));
  Tensor constant = run_ok({"Constant", "", 21, {{"value", attr_tensor(f8)}}, {}});
  EXPECT_EQ(bytes(constant), bytes(f8));
}

}  // namespace
}  // namespace hi::test
