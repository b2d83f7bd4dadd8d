// Element types. The numeric values are ONNX's TensorProto.DataType codes, so a code read from a
// model maps to a DType without a table, and unknown newer codes stay representable.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "hipinfer/export.h"

HI_PUBLIC_BEGIN
namespace hi {

enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};

// "float32", "int64", ... or "dtype(<code>)" for codes hipinfer does not know.
std::string dtype_name(DType t);
// Bytes per element in memory; 0 for unknown types (callers must check). The sub-byte types
// (int4, uint4, float4e2m1, int2, uint2) are held unpacked, one element per byte: int4/int2 as
// int8, uint4/uint2 as uint8, float4e2m1 as its 4-bit code. Only the ONNX file boundary packs them.
size_t dtype_size(DType t);
// Bits per element in ONNX files: 4 or 2 for the sub-byte types, 8 * dtype_size() otherwise
// (0 for strings and unknown types).
int dtype_bits(DType t);
// The five float8 types and float4e2m1: one byte holding the format's bit code.
bool dtype_is_minifloat(DType t);
// Minifloats plus int4/uint4/int2/uint2: the types only Cast and data movement ops handle.
bool dtype_is_low_precision(DType t);
bool dtype_is_float(DType t);    // float16/32/64, bfloat16
bool dtype_is_integer(DType t);  // signed or unsigned integers, not bool
bool dtype_is_signed(DType t);
// Types hipinfer can hold in a Tensor (fixed-size, or string).
bool dtype_is_supported(DType t);  // includes the low-precision types
// Parses "float32", "fp32", "float", "int64", ... Returns kUndefined when unknown.
DType dtype_from_name(const std::string& name);

// IEEE 754 binary16, stored as bits; arithmetic goes through float.
struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }  // NOLINT: implicit on purpose
  static uint16_t from_float(float f);
  static float to_float(uint16_t h);
};

// bfloat16: the upper half of a float32, rounded to nearest even.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }  // NOLINT
  static uint16_t from_float(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
  static float to_float(uint16_t b) {
    uint32_t u = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

// Minifloat formats, one bit code per byte (conversions in src/core/minifloat.cc). from_double
// rounds to nearest even; `saturate` follows the ONNX Cast tables: true maps out-of-range values
// and infinities to +-max, false maps them to inf where the format has one, NaN otherwise.
#define HI_DECLARE_MINIFLOAT(Name)                                                      \
  struct Name {                                                                         \
    uint8_t bits = 0;                                                                   \
    Name() = default;                                                                   \
    explicit Name(float f, bool saturate = true) : bits(from_double(f, saturate)) {}    \
    operator float() const { return to_float(bits); } /* NOLINT: implicit on purpose */ \
    static uint8_t from_double(double x, bool saturate = true);                         \
    static float to_float(uint8_t b);                                                   \
  };
HI_DECLARE_MINIFLOAT(Float8E4M3FN)    // 1-4-3, bias 7, no inf, NaN = S.1111.111, max 448
HI_DECLARE_MINIFLOAT(Float8E4M3FNUZ)  // 1-4-3, bias 8, no inf/-0, NaN = 0x80, max 240
HI_DECLARE_MINIFLOAT(Float8E5M2)      // 1-5-2, bias 15, IEEE-like with inf, max 57344
HI_DECLARE_MINIFLOAT(Float8E5M2FNUZ)  // 1-5-2, bias 16, no inf/-0, NaN = 0x80, max 57344
HI_DECLARE_MINIFLOAT(Float4E2M1)      // 1-2-1, bias 1, no inf/NaN, max 6 (always saturates)
#undef HI_DECLARE_MINIFLOAT

// Rounding for conversions to float8e8m0 (the Cast attribute round_mode).
enum class E8M0Rounding { kUp, kDown, kNearest };

// float8e8m0: an unsigned power of two 2^(bits - 127), 0xff = NaN; no zero, no sign.
struct Float8E8M0 {
  uint8_t bits = 0;
  Float8E8M0() = default;
  explicit Float8E8M0(float f, bool saturate = true, E8M0Rounding r = E8M0Rounding::kUp)
      : bits(from_double(f, saturate, r)) {}
  operator float() const { return to_float(bits); }  // NOLINT
  static uint8_t from_double(double x, bool saturate = true, E8M0Rounding r = E8M0Rounding::kUp);
  static float to_float(uint8_t b);
};

// Compile-time mapping from C++ type to DType.
template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kFloat32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::kFloat64;
};
template <>
struct DTypeOf<Float16> {
  static constexpr DType value = DType::kFloat16;
};
template <>
struct DTypeOf<BFloat16> {
  static constexpr DType value = DType::kBFloat16;
};
template <>
struct DTypeOf<int8_t> {
  static constexpr DType value = DType::kInt8;
};
template <>
struct DTypeOf<int16_t> {
  static constexpr DType value = DType::kInt16;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kInt32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::kInt64;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::kUInt8;
};
template <>
struct DTypeOf<uint16_t> {
  static constexpr DType value = DType::kUInt16;
};
template <>
struct DTypeOf<uint32_t> {
  static constexpr DType value = DType::kUInt32;
};
template <>
struct DTypeOf<uint64_t> {
  static constexpr DType value = DType::kUInt64;
};
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::kBool;
};
template <>
struct DTypeOf<Float8E4M3FN> {
  static constexpr DType value = DType::kFloat8E4M3FN;
};
template <>
struct DTypeOf<Float8E4M3FNUZ> {
  static constexpr DType value = DType::kFloat8E4M3FNUZ;
};
template <>
struct DTypeOf<Float8E5M2> {
  static constexpr DType value = DType::kFloat8E5M2;
};
template <>
struct DTypeOf<Float8E5M2FNUZ> {
  static constexpr DType value = DType::kFloat8E5M2FNUZ;
};
template <>
struct DTypeOf<Float4E2M1> {
  static constexpr DType value = DType::kFloat4E2M1;
};
template <>
struct DTypeOf<Float8E8M0> {
  static constexpr DType value = DType::kFloat8E8M0;
};
template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

}  // namespace hi
HI_PUBLIC_END
