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
// Gelu is exact: x * (1 + erf(x / sqrt 2)) / 2; Clip: min(max(x, alpha), beta); HardSigmoid:
// max(0, min(1, alpha * x + beta)); Elu: alpha; Selu: alpha, and gamma in beta.
#define HI_UNARY_KINDS(X)                                                                                  \
  X(kRelu) X(kLeakyRelu) X(kSigmoid) X(kTanh) X(kExp) X(kLog) X(kSqrt) X(kReciprocal) X(kNeg) X(kAbs)     \
  X(kErf) X(kGelu) X(kClip) X(kHardSigmoid) X(kHardSwish) X(kSoftplus) X(kElu) X(kSelu)
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

enum class BinaryKind { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow };

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

// y = a op b over `index` (y has index.numel elements); dtype kFloat32 or kFloat16.
Status binary(BinaryKind kind, DType dtype, const void* a, const void* b, void* y, const BroadcastIndex& index,
              Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
