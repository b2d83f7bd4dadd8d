// Shared by the quantization ops (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
// QLinearMatMul, QLinearConv): the element conversion to and from each quantized type, the
// opset each type arrived in, and the scale/zero-point layouts (per tensor, per axis, blocked).
//
// A quantized type is described by a codec: its storage type, `to_real` (the value a stored
// element stands for) and `quantize` (a scaled real value plus the zero point, rounded and
// saturated into the type). Adding a quantized type is one line in `dispatch_codec`.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "hipinfer/dtype.h"
#include "hipinfer/status.h"
#include "hipinfer/tensor.h"

namespace hi::ops::quant {

// Integer types, including the unpacked sub-byte ones (int4 and int2 held in int8_t, uint4 and
// uint2 in uint8_t): round half to even, add the zero point, saturate to [Lo, Hi].
template <typename S, int64_t Lo, int64_t Hi>
struct IntCodec {
  using Storage = S;
  static constexpr bool kInteger = true;
  static double to_real(S v) { return static_cast<double>(v); }
  // `saturate` only concerns float8; integers always saturate. NaN quantizes to the zero point.
  static S quantize(double scaled, S zero_point, bool /*saturate*/) {
    const double rounded = std::isnan(scaled) ? 0.0 : std::nearbyint(scaled);  // default mode: half to even
    const double v =
        std::clamp(rounded + static_cast<double>(zero_point), static_cast<double>(Lo), static_cast<double>(Hi));
    return static_cast<S>(v);
  }
};

// The float8 and float4 formats (one bit code per byte): add the zero point (normally 0) and
// convert with the format's rounding (nearest even) and the `saturate` rule of the ONNX tables.
template <typename M>
struct MinifloatCodec {
  using Storage = M;
  static constexpr bool kInteger = false;
  static double to_real(M v) { return static_cast<double>(static_cast<float>(v)); }
  static M quantize(double scaled, M zero_point, bool saturate) {
    M out;
    out.bits = M::from_double(scaled + to_real(zero_point), saturate);
    return out;
  }
};

// Calls f.template operator()<Codec>() for a quantized dtype; false (nothing called) otherwise.
template <typename F>
bool dispatch_codec(DType t, F&& f) {
  switch (t) {
    case DType::kUInt8: f.template operator()<IntCodec<uint8_t, 0, 255>>(); return true;
    case DType::kInt8: f.template operator()<IntCodec<int8_t, -128, 127>>(); return true;
    case DType::kUInt16: f.template operator()<IntCodec<uint16_t, 0, 65535>>(); return true;
    case DType::kInt16: f.template operator()<IntCodec<int16_t, -32768, 32767>>(); return true;
    case DType::kInt32: f.template operator()<IntCodec<int32_t, INT32_MIN, INT32_MAX>>(); return true;
    case DType::kUInt4: f.template operator()<IntCodec<uint8_t, 0, 15>>(); return true;
    case DType::kInt4: f.template operator()<IntCodec<int8_t, -8, 7>>(); return true;
    case DType::kUInt2: f.template operator()<IntCodec<uint8_t, 0, 3>>(); return true;
    case DType::kInt2: f.template operator()<IntCodec<int8_t, -2, 1>>(); return true;
    case DType::kFloat8E4M3FN: f.template operator()<MinifloatCodec<Float8E4M3FN>>(); return true;
    case DType::kFloat8E4M3FNUZ: f.template operator()<MinifloatCodec<Float8E4M3FNUZ>>(); return true;
    case DType::kFloat8E5M2: f.template operator()<MinifloatCodec<Float8E5M2>>(); return true;
    case DType::kFloat8E5M2FNUZ: f.template operator()<MinifloatCodec<Float8E5M2FNUZ>>(); return true;
    case DType::kFloat4E2M1: f.template operator()<MinifloatCodec<Float4E2M1>>(); return true;
    default: return false;
  }
}

// Which op family asks: the type sets differ (DequantizeLinear also takes int32, QLinearMatMul
// only int8/uint8 and float8).
enum class QuantUse { kQuantizeOutput, kDequantizeInput, kQLinearMatMul };

// Whether `t` is a quantized type of `use` at `opset`. On false, `*first_opset` is the opset the
// type arrived in (0 if never).
bool quant_type_allowed(QuantUse use, DType t, int64_t opset, int64_t* first_opset);
// Unsupported error naming the op, the opset, the tensor and its type (and the first opset that
// has the type, when a newer one does).
Status quant_type_error(const char* op, int64_t opset, const char* tensor, DType t, QuantUse use);

// Types a scale may have (float, float16, bfloat16; int32 and float8e8m0 where the spec allows).
bool scale_type_readable(DType t);
// Every element of a numeric or quantized tensor (float8e8m0, float8, int4, ...) as a double;
// callers check the type first (others are a bug).
std::vector<double> real_values(const Tensor& t);
// v rounded to the float type `p` (float32, float16, bfloat16), returned as a float.
float round_to(DType p, float v);

// How a scale (and its zero point) maps onto the elements of x.
struct QuantLayout {
  enum class Kind { kPerTensor, kPerAxis, kBlocked };
  Kind kind = Kind::kPerTensor;
  int64_t axis = 0;       // normalised
  int64_t block = 0;      // blocked only
  int64_t dim = 1;        // x's size along axis
  int64_t inner = 1;      // product of x's dims after axis
  int64_t scale_dim = 1;  // the scale's size along axis (blocked)

  // Index into the scale of element `i` of x (row-major).
  int64_t scale_index(int64_t i) const {
    if (kind == Kind::kPerTensor) return 0;
    const int64_t a = (i / inner) % dim;
    if (kind == Kind::kPerAxis) return a;
    const int64_t outer = i / (inner * dim);
    return (outer * scale_dim + a / block) * inner + i % inner;
  }
};

// The 8-bit fast path shared by QuantizeLinear and DequantizeLinear (ops/quantize_loops.cc):
// when `quantized` (the 8-bit side's type) is uint8 or int8, the zero point (if any) has that
// type and the layout is per tensor, or per axis with runs of at least 64 elements, calls
// span(offset, count, scale, zero point) over x's elements and returns true; else false, and the
// caller runs the reference loop.
template <typename Span>
bool run_8bit_fast(const QuantLayout& layout, const Tensor& x, const Tensor& scale, const Tensor* zp, DType quantized,
                   Span&& span) {
  if (quantized != DType::kUInt8 && quantized != DType::kInt8) return false;
  if (zp && zp->dtype() != quantized) return false;
  if (layout.kind == QuantLayout::Kind::kBlocked || (layout.kind == QuantLayout::Kind::kPerAxis && layout.inner < 64))
    return false;
  auto zero_point = [&](int64_t i) -> int32_t {
    if (!zp) return 0;
    return quantized == DType::kUInt8 ? int32_t{zp->data<uint8_t>()[i]} : int32_t{zp->data<int8_t>()[i]};
  };
  const float* s = scale.data<float>();
  if (layout.kind == QuantLayout::Kind::kPerTensor) {
    span(0, x.numel(), s[0], zero_point(0));
    return true;
  }
  const int64_t runs = x.numel() / layout.inner;
  for (int64_t r = 0; r < runs; ++r)
    span(r * layout.inner, layout.inner, s[r % layout.dim], zero_point(r % layout.dim));
  return true;
}

// Works out the layout from the shapes: a scalar (or one-element 1-D) scale is per tensor, a 1-D
// scale of x's size along `axis` per axis (opset >= 13), and with block_size > 0 a scale of x's
// rank whose size along axis is ceil(dim / block_size) is blocked (opset >= 21). The zero point,
// when given, must have the scale's shape. Errors name the op, both tensors and their shapes.
Result<QuantLayout> make_layout(const char* op, int64_t opset, const Shape& x, const Shape& scale,
                                const Shape* zero_point, int64_t axis, int64_t block_size, const char* scale_name);

}  // namespace hi::ops::quant
