// Conversions for the minifloat types of dtype.h (float8 variants, float4e2m1, float8e8m0).
//
// All the sign/exponent/mantissa formats share one encoder and one decoder, parametrised by the
// format's layout. Rounding is done in double arithmetic on the value itself (scale by a power
// of two, round to nearest even, scale back), which is exact for every float/double input and
// so needs no bit tricks per format.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/low_precision.h"
#include "hipinfer/dtype.h"

namespace hi {
namespace {

struct MinifloatFormat {
  int exp_bits;        // exponent field width
  int mant_bits;       // stored mantissa bits
  int bias;            // exponent bias
  double max;          // largest finite value
  bool has_inf;        // exponent all ones, mantissa 0 (E5M2 only)
  bool has_nan;        // float4e2m1 has none
  bool unsigned_zero;  // FNUZ: 0x80 is the NaN, there is no -0
  uint8_t nan;         // the positive NaN code (FNUZ: 0x80)
};

constexpr MinifloatFormat kE4M3FN{4, 3, 7, 448.0, false, true, false, 0x7f};
constexpr MinifloatFormat kE4M3FNUZ{4, 3, 8, 240.0, false, true, true, 0x80};
constexpr MinifloatFormat kE5M2{5, 2, 15, 57344.0, true, true, false, 0x7f};
constexpr MinifloatFormat kE5M2FNUZ{5, 2, 16, 57344.0, false, true, true, 0x80};
constexpr MinifloatFormat kE2M1{2, 1, 1, 6.0, false, false, false, 0};

uint8_t sign_bit(const MinifloatFormat& f) { return static_cast<uint8_t>(1u << (f.exp_bits + f.mant_bits)); }

uint8_t nan_code(const MinifloatFormat& f, bool negative) {
  if (f.unsigned_zero) return f.nan;
  return static_cast<uint8_t>(f.nan | (negative ? sign_bit(f) : 0));
}

// Encodes a finite, non-negative value already representable in the format.
uint8_t encode_magnitude(const MinifloatFormat& f, double v) {
  if (v == 0) return 0;
  const int min_exp = 1 - f.bias;  // exponent of the smallest normal number
  int e = std::ilogb(v);
  if (e < min_exp) {  // subnormal: exponent field 0
    return static_cast<uint8_t>(std::ldexp(v, f.mant_bits - min_exp));
  }
  const int mant = static_cast<int>(std::ldexp(v, f.mant_bits - e)) - (1 << f.mant_bits);
  return static_cast<uint8_t>(((e + f.bias) << f.mant_bits) | mant);
}

uint8_t encode(const MinifloatFormat& f, double x, bool saturate) {
  const bool negative = std::signbit(x);
  if (std::isnan(x)) return f.has_nan ? nan_code(f, negative) : 0;  // float4e2m1: no NaN
  const uint8_t sign = negative ? sign_bit(f) : 0;
  const uint8_t signed_max = static_cast<uint8_t>(sign | encode_magnitude(f, f.max));
  const double a = std::fabs(x);
  // Out of range (after rounding) or infinite: +-max when saturating or when the format has
  // neither inf nor NaN (float4e2m1), else inf (E5M2) or NaN.
  const auto overflow = [&]() -> uint8_t {
    if (saturate || !f.has_nan) return signed_max;
    const int all_ones_exp = (1 << f.exp_bits) - 1;
    return f.has_inf ? static_cast<uint8_t>(sign | (all_ones_exp << f.mant_bits)) : nan_code(f, negative);
  };
  if (std::isinf(a)) return overflow();
  // Round to the format's precision at this magnitude: quantum 2^(e - mant_bits), with e never
  // below the smallest normal exponent (the subnormal spacing). nearbyint rounds half to even
  // in the default floating-point environment, which hipinfer never changes.
  const int e = std::max(std::ilogb(a == 0 ? 1.0 : a), 1 - f.bias);
  const double rounded = std::ldexp(std::nearbyint(std::ldexp(a, f.mant_bits - e)), e - f.mant_bits);
  if (rounded > f.max) return overflow();
  const uint8_t mag = encode_magnitude(f, rounded);
  if (mag == 0 && f.unsigned_zero) return 0;  // -0 and negative underflow become +0
  return static_cast<uint8_t>(sign | mag);
}

float decode(const MinifloatFormat& f, uint8_t b) {
  const int eb = f.exp_bits;
  b = static_cast<uint8_t>(b & ((1u << (1 + eb + f.mant_bits)) - 1));  // e2m1 keeps 4 bits
  const bool negative = (b & sign_bit(f)) != 0;
  const int exp_field = (b >> f.mant_bits) & ((1 << eb) - 1);
  const int mant = b & ((1 << f.mant_bits) - 1);
  if (f.unsigned_zero && b == 0x80) return std::numeric_limits<float>::quiet_NaN();
  if (f.has_nan && !f.unsigned_zero) {
    const bool all_ones = exp_field == (1 << eb) - 1;
    if (f.has_inf && all_ones) {
      if (mant != 0) return std::numeric_limits<float>::quiet_NaN();
      return negative ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
    }
    if (!f.has_inf && all_ones && mant == (1 << f.mant_bits) - 1) return std::numeric_limits<float>::quiet_NaN();
  }
  const double v = exp_field == 0 ? std::ldexp(mant, 1 - f.bias - f.mant_bits)
                                  : std::ldexp(mant + (1 << f.mant_bits), exp_field - f.bias - f.mant_bits);
  return static_cast<float>(negative ? -v : v);
}

}  // namespace

uint8_t Float8E4M3FN::from_double(double x, bool saturate) { return encode(kE4M3FN, x, saturate); }
float Float8E4M3FN::to_float(uint8_t b) { return decode(kE4M3FN, b); }
uint8_t Float8E4M3FNUZ::from_double(double x, bool saturate) { return encode(kE4M3FNUZ, x, saturate); }
float Float8E4M3FNUZ::to_float(uint8_t b) { return decode(kE4M3FNUZ, b); }
uint8_t Float8E5M2::from_double(double x, bool saturate) { return encode(kE5M2, x, saturate); }
float Float8E5M2::to_float(uint8_t b) { return decode(kE5M2, b); }
uint8_t Float8E5M2FNUZ::from_double(double x, bool saturate) { return encode(kE5M2FNUZ, x, saturate); }
float Float8E5M2FNUZ::to_float(uint8_t b) { return decode(kE5M2FNUZ, b); }
uint8_t Float4E2M1::from_double(double x, bool saturate) { return encode(kE2M1, x, saturate); }
float Float4E2M1::to_float(uint8_t b) { return decode(kE2M1, b); }

// float8e8m0 is rounded on the float32 bit pattern, as the ONNX reference does: the exponent
// field is kept and the mantissa decides whether to round up. The sign is ignored (negative
// inputs are unspecified by ONNX), NaN and infinity give NaN, 0 gives the smallest code.
uint8_t Float8E8M0::from_double(double x, bool saturate, E8M0Rounding rounding) {
  const float f = static_cast<float>(x);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t exp = (bits >> 23) & 0xffu;
  const uint32_t mant = bits & 0x7fffffu;
  if (exp == 0xffu) return 0xff;
  bool round_up = false;
  switch (rounding) {
    case E8M0Rounding::kUp: round_up = mant != 0; break;
    case E8M0Rounding::kDown: break;
    case E8M0Rounding::kNearest:
      // Round half up on the mantissa; a subnormal float32 (exp 0) needs more than one half.
      round_up = (mant & 0x400000u) != 0 && ((mant & 0x3fffffu) != 0 || exp > 0);
      break;
  }
  if (round_up && exp == 0xfeu && saturate) round_up = false;  // stay at the largest value
  exp += round_up ? 1 : 0;
  return static_cast<uint8_t>(exp);  // 0xfe + 1 without saturation is the NaN code 0xff
}

float Float8E8M0::to_float(uint8_t b) {
  if (b == 0xff) return std::numeric_limits<float>::quiet_NaN();
  // 2^(b - 127); b = 0 is 2^-127, a float32 subnormal, which ldexp produces exactly.
  return std::ldexp(1.0f, static_cast<int>(b) - 127);
}

// --- element helpers (core/low_precision.h) ---

int8_t wrap_to_signed_bits(int64_t v, int bits) {
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  const uint64_t low = static_cast<uint64_t>(v) & mask;
  const bool negative = (low >> (bits - 1)) != 0;
  return static_cast<int8_t>(negative ? static_cast<int64_t>(low) - (int64_t{1} << bits) : static_cast<int64_t>(low));
}

uint8_t wrap_to_unsigned_bits(int64_t v, int bits) {
  return static_cast<uint8_t>(static_cast<uint64_t>(v) & ((uint64_t{1} << bits) - 1));
}

float low_precision_to_float(DType t, uint8_t byte) {
  switch (t) {
    case DType::kFloat8E4M3FN: return Float8E4M3FN::to_float(byte);
    case DType::kFloat8E4M3FNUZ: return Float8E4M3FNUZ::to_float(byte);
    case DType::kFloat8E5M2: return Float8E5M2::to_float(byte);
    case DType::kFloat8E5M2FNUZ: return Float8E5M2FNUZ::to_float(byte);
    case DType::kFloat8E8M0: return Float8E8M0::to_float(byte);
    case DType::kFloat4E2M1: return Float4E2M1::to_float(byte);
    case DType::kInt4:
    case DType::kInt2: return static_cast<int8_t>(byte);
    default: return byte;  // uint4, uint2
  }
}

uint8_t low_precision_from_double(DType t, double x, bool saturate, E8M0Rounding rounding) {
  // Sub-byte integers: like float -> int64 narrowing (truncate; NaN -> 0), then wrap.
  const auto as_int = [x]() -> int64_t {
    if (std::isnan(x)) return 0;
    if (x >= 9.2e18) return std::numeric_limits<int64_t>::max();
    if (x <= -9.2e18) return std::numeric_limits<int64_t>::lowest();
    return static_cast<int64_t>(std::trunc(x));
  };
  switch (t) {
    case DType::kFloat8E4M3FN: return Float8E4M3FN::from_double(x, saturate);
    case DType::kFloat8E4M3FNUZ: return Float8E4M3FNUZ::from_double(x, saturate);
    case DType::kFloat8E5M2: return Float8E5M2::from_double(x, saturate);
    case DType::kFloat8E5M2FNUZ: return Float8E5M2FNUZ::from_double(x, saturate);
    case DType::kFloat8E8M0: return Float8E8M0::from_double(x, saturate, rounding);
    case DType::kFloat4E2M1: return Float4E2M1::from_double(x, saturate);
    case DType::kInt4: return static_cast<uint8_t>(wrap_to_signed_bits(as_int(), 4));
    case DType::kInt2: return static_cast<uint8_t>(wrap_to_signed_bits(as_int(), 2));
    case DType::kUInt4: return wrap_to_unsigned_bits(as_int(), 4);
    case DType::kUInt2: return wrap_to_unsigned_bits(as_int(), 2);
    default: return 0;
  }
}

int64_t packed_size(DType t, int64_t n) {
  // Elements per byte, not n * bits: a forged element count near 2^63 must not overflow.
  const int64_t per_byte = 8 / dtype_bits(t);
  return n / per_byte + (n % per_byte != 0);
}

void pack_sub_byte(DType t, const uint8_t* unpacked, int64_t n, uint8_t* packed) {
  const int bits = dtype_bits(t);
  const int per_byte = 8 / bits;
  const unsigned mask = (1u << bits) - 1;
  std::memset(packed, 0, static_cast<size_t>(packed_size(t, n)));
  for (int64_t i = 0; i < n; ++i)
    packed[i / per_byte] =
        static_cast<uint8_t>(packed[i / per_byte] | ((unpacked[i] & mask) << (bits * (i % per_byte))));
}

void unpack_sub_byte(DType t, const uint8_t* packed, int64_t n, uint8_t* unpacked) {
  const int bits = dtype_bits(t);
  const int per_byte = 8 / bits;
  const bool is_signed = t == DType::kInt4 || t == DType::kInt2;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t code = (packed[i / per_byte] >> (bits * (i % per_byte))) & ((1 << bits) - 1);
    unpacked[i] = is_signed ? static_cast<uint8_t>(wrap_to_signed_bits(code, bits)) : static_cast<uint8_t>(code);
  }
}

}  // namespace hi
