// Unary elementwise kernels (see elementwise.h). One kernel per (op, dtype) through a template on
// the op kind, so the switch is resolved at compile time and the loop body is one expression.
#include <cmath>

// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/elementwise.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <UnaryKind K>
__device__ __forceinline__ float apply(float x, float alpha, float beta) {
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
  else if constexpr (K == UnaryKind::kClip) return fminf(fmaxf(x, alpha), beta);
  else if constexpr (K == UnaryKind::kHardSigmoid) return fmaxf(0.f, fminf(1.f, alpha * x + beta));
  else if constexpr (K == UnaryKind::kHardSwish) return x * fmaxf(0.f, fminf(1.f, x / 6.f + 0.5f));
  // log(1 + e^x) without overflow: x + log1p(e^-x) for large x.
  else if constexpr (K == UnaryKind::kSoftplus) return x > 0.f ? x + log1pf(expf(-x)) : log1pf(expf(x));
  else if constexpr (K == UnaryKind::kElu) return x >= 0.f ? x : alpha * expm1f(x);
  else return x > 0.f ? beta * x : beta * alpha * expm1f(x);  // kSelu: gamma in beta
}

template <UnaryKind K, typename T>
__global__ void unary_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n, float alpha, float beta) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    store_f(y, i, apply<K>(load_f(x, i), alpha, beta));
}

template <UnaryKind K, typename T>
void launch(const UnaryOp& op, const void* x, void* y, int64_t n, cudaStream_t s) {
  unary_kernel<K, T><<<elementwise_blocks(n), kElementwiseBlock, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), n,
                                                                         op.alpha, op.beta);
}

template <typename T>
void dispatch(const UnaryOp& op, const void* x, void* y, int64_t n, cudaStream_t s) {
  switch (op.kind) {
#define HI_UNARY_CASE(K) \
  case UnaryKind::K: launch<UnaryKind::K, T>(op, x, y, n, s); break;
    HI_UNARY_CASE(kRelu) HI_UNARY_CASE(kLeakyRelu) HI_UNARY_CASE(kSigmoid) HI_UNARY_CASE(kTanh)
    HI_UNARY_CASE(kExp) HI_UNARY_CASE(kLog) HI_UNARY_CASE(kSqrt) HI_UNARY_CASE(kReciprocal)
    HI_UNARY_CASE(kNeg) HI_UNARY_CASE(kAbs) HI_UNARY_CASE(kErf) HI_UNARY_CASE(kGelu)
    HI_UNARY_CASE(kClip) HI_UNARY_CASE(kHardSigmoid) HI_UNARY_CASE(kHardSwish) HI_UNARY_CASE(kSoftplus)
    HI_UNARY_CASE(kElu) HI_UNARY_CASE(kSelu)
#undef HI_UNARY_CASE
  }
}

}  // namespace

Status unary(const UnaryOp& op, DType dtype, const void* x, void* y, int64_t n, Stream stream) {
  HI_RETURN_IF(n < 0, kInvalidArgument, "GPU unary kernel: element count must be >= 0, got ", n);
  if (n == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU unary kernel: null buffer for ", n, " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == DType::kFloat32) dispatch<float>(op, x, y, n, s);
  else if (dtype == DType::kFloat16) dispatch<__half>(op, x, y, n, s);
  else return error(StatusCode::kUnsupported, "GPU unary kernel: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
