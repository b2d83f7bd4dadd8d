// Device-side activation functions, shared by the unary kernels (one instantiation per kind)
// and by the epilogues of fused kernels (conv2d), which pick the kind at run time.
#pragma once

#include "backends/gpu/kernels/elementwise.h"
#include "backends/gpu/kernels/elementwise_util.cuh"

namespace hi::gpu::HI_GPU_NS {

template <UnaryKind K>
__device__ __forceinline__ float apply_unary(float x, float alpha, float beta) {
  if constexpr (K == UnaryKind::kRelu) return x > 0.f ? x : 0.f;
  else if constexpr (K == UnaryKind::kLeakyRelu) return x >= 0.f ? x : alpha * x;
  else if constexpr (K == UnaryKind::kSigmoid) return 1.f / (1.f + expf(-x));
  else if constexpr (K == UnaryKind::kTanh) return tanhf(x);
  else if constexpr (K == UnaryKind::kExp) return expf(x);
  else if constexpr (K == UnaryKind::kLog) return logf(x);
  else if constexpr (K == UnaryKind::kSqrt) return sqrtf(x);
  else if constexpr (K == UnaryKind::kReciprocal) return 1.f / x;
  else if constexpr (K == UnaryKind::kNeg) return -x;
  else if constexpr (K == UnaryKind::kAbs) return fabsf(x);
  else if constexpr (K == UnaryKind::kErf) return erff(x);
  else if constexpr (K == UnaryKind::kGelu) return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
  else if constexpr (K == UnaryKind::kClip) {  // NaN stays NaN; alpha > beta gives beta, as the CPU op
    const float v = x < alpha ? alpha : x;
    return v > beta ? beta : v;
  } else if constexpr (K == UnaryKind::kHardSigmoid) return fmaxf(0.f, fminf(1.f, alpha * x + beta));
  else if constexpr (K == UnaryKind::kHardSwish) return x * fmaxf(0.f, fminf(1.f, x / 6.f + 0.5f));
  // log(1 + e^x) without overflow: x + log1p(e^-x) for large x.
  else if constexpr (K == UnaryKind::kSoftplus) return x > 0.f ? x + log1pf(expf(-x)) : log1pf(expf(x));
  else if constexpr (K == UnaryKind::kElu) return x >= 0.f ? x : alpha * expm1f(x);
  else if constexpr (K == UnaryKind::kSelu) return x > 0.f ? beta * x : beta * alpha * expm1f(x);  // gamma in beta
  else if constexpr (K == UnaryKind::kGeluTanh)  // the CPU's constants: sqrt(2 / pi), 0.044715
    return 0.5f * x * (1.f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  else if constexpr (K == UnaryKind::kSin) return sinf(x);
  else if constexpr (K == UnaryKind::kCos) return cosf(x);
  else if constexpr (K == UnaryKind::kFloor) return floorf(x);
  else if constexpr (K == UnaryKind::kCeil) return ceilf(x);
  else if constexpr (K == UnaryKind::kRound) return rintf(x);  // the default rounding mode: halves to even
  else if constexpr (K == UnaryKind::kSign) return x > 0.f ? 1.f : x < 0.f ? -1.f : (x != x ? x : 0.f);
  else if constexpr (K == UnaryKind::kTan) return tanf(x);
  else if constexpr (K == UnaryKind::kAsin) return asinf(x);
  else if constexpr (K == UnaryKind::kAcos) return acosf(x);
  else if constexpr (K == UnaryKind::kAtan) return atanf(x);
  else if constexpr (K == UnaryKind::kSinh) return sinhf(x);
  else if constexpr (K == UnaryKind::kCosh) return coshf(x);
  else if constexpr (K == UnaryKind::kAsinh) return asinhf(x);
  else if constexpr (K == UnaryKind::kAcosh) return acoshf(x);
  else if constexpr (K == UnaryKind::kAtanh) return atanhf(x);
  else if constexpr (K == UnaryKind::kSoftsign) return x / (1.f + fabsf(x));
  else if constexpr (K == UnaryKind::kCelu) return fmaxf(0.f, x) + fminf(0.f, alpha * expm1f(x / alpha));
  else if constexpr (K == UnaryKind::kMish) return x * tanhf(x > 0.f ? x + log1pf(expf(-x)) : log1pf(expf(x)));
  else if constexpr (K == UnaryKind::kThresholdedRelu) return x > alpha ? x : 0.f;
  else if constexpr (K == UnaryKind::kShrink) return x < -alpha ? x + beta : x > alpha ? x - beta : 0.f;
  else if constexpr (K == UnaryKind::kAffine) return alpha * x + beta;
  else if constexpr (K == UnaryKind::kSwish) return x / (1.f + expf(-alpha * x));
  else return alpha * tanhf(beta * x);  // kScaledTanh
}

// The same, with the kind chosen at run time.
__device__ __forceinline__ float apply_unary(const UnaryOp& op, float x) {
  switch (op.kind) {
#define HI_UNARY_CASE(K) \
  case UnaryKind::K: return apply_unary<UnaryKind::K>(x, op.alpha, op.beta);
    HI_UNARY_KINDS(HI_UNARY_CASE)
#undef HI_UNARY_CASE
  }
  return x;
}

}  // namespace hi::gpu::HI_GPU_NS
