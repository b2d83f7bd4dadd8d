// DType names and sizes, and the float16 conversions.
#include "hipinfer/dtype.h"

#include <algorithm>
#include <cctype>

namespace hi {

std::string dtype_name(DType t) {
  switch (t) {
    case DType::kUndefined: return "undefined";
    case DType::kFloat32: return "float32";
    case DType::kUInt8: return "uint8";
    case DType::kInt8: return "int8";
    case DType::kUInt16: return "uint16";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kString: return "string";
    case DType::kBool: return "bool";
    case DType::kFloat16: return "float16";
    case DType::kFloat64: return "float64";
    case DType::kUInt32: return "uint32";
    case DType::kUInt64: return "uint64";
    case DType::kComplex64: return "complex64";
    case DType::kComplex128: return "complex128";
    case DType::kBFloat16: return "bfloat16";
    case DType::kFloat8E4M3FN: return "float8e4m3fn";
    case DType::kFloat8E4M3FNUZ: return "float8e4m3fnuz";
    case DType::kFloat8E5M2: return "float8e5m2";
    case DType::kFloat8E5M2FNUZ: return "float8e5m2fnuz";
    case DType::kUInt4: return "uint4";
    case DType::kInt4: return "int4";
    case DType::kFloat4E2M1: return "float4e2m1";
    case DType::kFloat8E8M0: return "float8e8m0";
    case DType::kUInt2: return "uint2";
    case DType::kInt2: return "int2";
  }
  return "dtype(" + std::to_string(static_cast<int>(t)) + ")";
}

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUInt32: return 4;
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kBool: return 1;
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
    case DType::kFloat8E8M0: return 1;
    // Sub-byte types are held unpacked, one element per byte (see dtype.h).
    case DType::kInt4:
    case DType::kUInt4:
    case DType::kFloat4E2M1:
    case DType::kInt2:
    case DType::kUInt2: return 1;
    case DType::kUInt16:
    case DType::kInt16:
    case DType::kFloat16:
    case DType::kBFloat16: return 2;
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kFloat64:
    case DType::kComplex64: return 8;
    case DType::kComplex128: return 16;
    case DType::kString: return sizeof(std::string);
    default: return 0;
  }
}

int dtype_bits(DType t) {
  switch (t) {
    case DType::kInt4:
    case DType::kUInt4:
    case DType::kFloat4E2M1: return 4;
    case DType::kInt2:
    case DType::kUInt2: return 2;
    case DType::kString: return 0;
    default: return static_cast<int>(8 * dtype_size(t));
  }
}

bool dtype_is_minifloat(DType t) {
  switch (t) {
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
    case DType::kFloat8E8M0:
    case DType::kFloat4E2M1: return true;
    default: return false;
  }
}

bool dtype_is_low_precision(DType t) {
  return dtype_is_minifloat(t) || t == DType::kInt4 || t == DType::kUInt4 || t == DType::kInt2 || t == DType::kUInt2;
}

bool dtype_is_float(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kFloat64 || t == DType::kBFloat16;
}

bool dtype_is_integer(DType t) {
  switch (t) {
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kUInt16:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kUInt32:
    case DType::kUInt64: return true;
    default: return false;
  }
}

bool dtype_is_signed(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64 || dtype_is_float(t);
}

bool dtype_is_supported(DType t) {
  return dtype_is_float(t) || dtype_is_integer(t) || t == DType::kBool || t == DType::kString ||
         dtype_is_low_precision(t);
}

DType dtype_from_name(const std::string& name) {
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  if (n == "float" || n == "fp32" || n == "f32") return DType::kFloat32;
  if (n == "half" || n == "fp16" || n == "f16") return DType::kFloat16;
  if (n == "double" || n == "fp64" || n == "f64") return DType::kFloat64;
  if (n == "bf16") return DType::kBFloat16;
  for (int code = 1; code <= 26; ++code) {
    if (dtype_name(static_cast<DType>(code)) == n) return static_cast<DType>(code);
  }
  return DType::kUndefined;
}

// Round-to-nearest-even float32 -> binary16, with subnormals, infinities and NaN.
uint16_t Float16::from_float(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return static_cast<uint16_t>(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to infinity
  if (x < 0x38800000u) {                                               // result is subnormal or zero
    if (x < 0x33000000u) return static_cast<uint16_t>(sign);
    const uint32_t exp = x >> 23;
    const uint32_t mant = (x & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14..24
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = ((x >> 13) - (112u << 10));
  const uint32_t rem = x & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float Float16::to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    x = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    x = sign;
  } else {  // subnormal: normalise
    exp = 113;
    while (!(mant & 0x400u)) {
      mant <<= 1;
      --exp;
    }
    x = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace hi
