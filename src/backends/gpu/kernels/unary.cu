// Unary elementwise kernels (see elementwise.h). One kernel per (op, dtype) through a template on
// the op kind, so the switch is resolved at compile time and the loop body is one expression.
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/activation.cuh"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

// x and y may be one buffer (Mean scales its sum in place), so neither is __restrict__.
template <UnaryKind K, typename T>
__global__ void unary_kernel(const T* x, T* y, int64_t n, float alpha, float beta) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    store_f(y, i, apply_unary<K>(load_f(x, i), alpha, beta));
}

template <UnaryKind K, typename T>
void launch(const UnaryOp& op, const void* x, void* y, int64_t n, cudaStream_t s) {
  launch_kernel<unary_kernel<K, T>>(elementwise_blocks(n), kElementwiseBlock, 0, s, static_cast<const T*>(x),
                                    static_cast<T*>(y), n, op.alpha, op.beta);
}

template <typename T>
void dispatch(const UnaryOp& op, const void* x, void* y, int64_t n, cudaStream_t s) {
  switch (op.kind) {
#define HI_UNARY_CASE(K) \
  case UnaryKind::K: launch<UnaryKind::K, T>(op, x, y, n, s); break;
    HI_UNARY_KINDS(HI_UNARY_CASE)
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
  else
    return error(StatusCode::kUnsupported, "GPU unary kernel: no kernel for ", dtype_name(dtype),
                 " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
