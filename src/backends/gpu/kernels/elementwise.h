// Elementwise kernels: unary activations and math (kernels/unary.cu) and binary arithmetic with
// numpy broadcasting (kernels/binary.cu), for float32 and float16. float16 is storage only: each
// element is computed in float32 and rounded once to nearest-even, as the CPU reference does.
#pragma once

#include <cstdint>

#include "backends/gpu/device_api.h"
#include "hipinfer/dtype.h"
#include "hipinfer/tensor.h"

namespace hi::gpu::HI_GPU_NS {

// The one list of unary kinds; switches over them expand it (HI_UNARY_KINDS(X) calls X(kind)).
// Gelu is exact: x * (1 + erf(x / sqrt 2)) / 2, GeluTanh its tanh approximation; Clip:
// min(max(x, alpha), beta) with NaN kept (as the CPU op); HardSigmoid: max(0, min(1, alpha * x +
// beta)); Elu: alpha; Selu: alpha, and gamma in beta; Round: halves to even; Sign: NaN kept;
// Celu, ThresholdedRelu, Swish: alpha; Shrink: lambd in alpha, bias in beta; Affine: alpha * x +
// beta (Mean's 1/n too); ScaledTanh: alpha * tanh(beta * x).
// clang-format off
#define HI_UNARY_KINDS(X)                                                                                  \
  X(kRelu) X(kLeakyRelu) X(kSigmoid) X(kTanh) X(kExp) X(kLog) X(kSqrt) X(kReciprocal) X(kNeg) X(kAbs)     \
  X(kErf) X(kGelu) X(kClip) X(kHardSigmoid) X(kHardSwish) X(kSoftplus) X(kElu) X(kSelu) X(kGeluTanh)      \
  X(kSin) X(kCos) X(kFloor) X(kCeil) X(kRound) X(kSign) X(kTan) X(kAsin) X(kAcos) X(kAtan) X(kSinh)        \
  X(kCosh) X(kAsinh) X(kAcosh) X(kAtanh) X(kSoftsign) X(kCelu) X(kMish) X(kThresholdedRelu) X(kShrink)     \
  X(kAffine) X(kSwish) X(kScaledTanh)
// clang-format on
#define HI_UNARY_ENUMERATOR(K) K,
enum class UnaryKind { HI_UNARY_KINDS(HI_UNARY_ENUMERATOR) };
#undef HI_UNARY_ENUMERATOR
struct UnaryOp {
  UnaryKind kind = UnaryKind::kRelu;
  float alpha = 0;
  float beta = 0;
};

// y[i] = op(x[i]) for i in [0, n); dtype kFloat32 or kFloat16; x may equal y. Errors:
// kInvalidArgument for n < 0 or null buffers, kUnsupported for another dtype.
Status unary(const UnaryOp& op, DType dtype, const void* x, void* y, int64_t n, Stream stream);

// PRelu: a < 0 ? a * b : a (b the slope); Fmod: C's fmod (Mod with fmod=1), the sign of a.
enum class BinaryKind { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow, kPRelu, kFmod };

constexpr int kMaxBroadcastRank = 8;
// The output's dims and each input's element strides over them (0 along a broadcast dim).
struct BroadcastIndex {
  int rank = 0;
  int64_t numel = 0;
  bool same_shape = false;  // both inputs have the output's shape: no index arithmetic
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t a_strides[kMaxBroadcastRank] = {};
  int64_t b_strides[kMaxBroadcastRank] = {};
};
// numpy broadcasting of two shapes. Errors (kInvalidArgument) name both shapes and the dim
// that disagrees; rank above kMaxBroadcastRank is kUnsupported.
Result<BroadcastIndex> make_broadcast_index(const Shape& a, const Shape& b);
// The same over a given output shape that both broadcast to (a variadic op's running result).
Result<BroadcastIndex> make_broadcast_index_to(const Shape& out, const Shape& a, const Shape& b);

// y = a op b over `index` (y has index.numel elements); dtype kFloat32 or kFloat16, or for Add,
// Sub, Mul, Max and Min also kInt32 and kInt64 (wrapping on overflow, as the CPU does). y may be
// a (the same buffer, with a's shape equal to the output's): Sum and Mean accumulate in place.
Status binary(BinaryKind kind, DType dtype, const void* a, const void* b, void* y, const BroadcastIndex& index,
              Stream stream);

// Where (kernels/where.cu): y = cond ? x : y_else with numpy broadcasting of all three; cond is
// bool (one byte), x and y_else elements of elem_size bytes (1, 2, 4 or 8).
struct WhereIndex {
  int rank = 0;
  int64_t numel = 0;
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t strides[3][kMaxBroadcastRank] = {};  // cond, x, y_else over the output's dims (0: broadcast)
};
// Errors (kInvalidArgument) name the shapes that do not broadcast; rank above kMaxBroadcastRank
// is kUnsupported.
Result<WhereIndex> make_where_index(const Shape& cond, const Shape& x, const Shape& y_else);
Status where(const WhereIndex& index, int elem_size, const void* cond, const void* x, const void* y_else, void* y,
             Stream stream);

// Cast (kernels/cast.cu): y[i] = x[i] converted as the CPU's Cast does (ops/convert.h), between
// any two of float32, float16, int64, int32, int8, uint8 and bool (cast_supports).
bool cast_supports(DType t);
Status cast(DType from, DType to, const void* x, void* y, int64_t n, Stream stream);

// Comparisons and logic with numpy broadcasting (kernels/compare.cu): y (bool) = a op b.
// Comparisons take float32, float16, int64, int32, int8, uint8 or bool (Equal) operands of one
// type, the logical ops bool; NaN compares unequal and unordered, as on the CPU.
enum class CompareKind { kEqual, kLess, kGreater, kLessOrEqual, kGreaterOrEqual, kAnd, kOr, kXor };
bool compare_supports(CompareKind kind, DType dtype);
Status compare(CompareKind kind, DType dtype, const void* a, const void* b, bool* y, const BroadcastIndex& index,
               Stream stream);

// Tests of one element (kernels/compare.cu): y (bool) = Not(x) for bool x; IsNaN(x); IsInf(x),
// counting +inf when detect_positive and -inf when detect_negative; x float32 or float16.
enum class PredicateKind { kNot, kIsNaN, kIsInf };
struct PredicateOp {
  PredicateKind kind = PredicateKind::kNot;
  bool detect_positive = true, detect_negative = true;
};
Status predicate(const PredicateOp& op, DType dtype, const void* x, bool* y, int64_t n, Stream stream);

// QuantizeLinear / DequantizeLinear (kernels/quantize.cu) per tensor or per axis: x viewed as
// [outer, channels, inner] with a float32 scale (and an optional zero point of the quantized
// type) per channel. Quantize: y = saturate(round_half_even(x / scale) + zp), x float32 or
// float16, y int8 or uint8; NaN gives the zero point. Dequantize: y (float32) = (x - zp) * scale,
// x int8, uint8 or int32.
struct QuantDesc {
  int64_t channels = 1, inner = 1;
};
bool quantized_type(DType t);  // int8, uint8
Status quantize_linear(DType x_type, DType y_type, const void* x, const float* scale, const void* zero_point, void* y,
                       const QuantDesc& d, int64_t n, Stream stream);
Status dequantize_linear(DType x_type, const void* x, const float* scale, const void* zero_point, float* y,
                         const QuantDesc& d, int64_t n, Stream stream);

// BatchNormalization in inference mode (kernels/batch_norm.cu): x viewed as [outer, channels,
// inner], y = (x - mean) / sqrt(var + epsilon) * scale + bias with the parameters of the element's
// channel (spatial), or of its (channel, inner) position (spatial = false: parameters
// [channels, inner]). x and y have `dtype`; scale and bias `scale_dtype`, mean and var
// `stats_dtype` (each kFloat32 or kFloat16).
struct BatchNormDesc {
  int64_t outer = 0, channels = 0, inner = 0;
  bool spatial = true;
  float epsilon = 1e-5f;
  DType scale_dtype = DType::kFloat32, stats_dtype = DType::kFloat32;
};
Status batch_norm(const BatchNormDesc& d, DType dtype, const void* x, const void* scale, const void* bias,
                  const void* mean, const void* var, void* y, Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
