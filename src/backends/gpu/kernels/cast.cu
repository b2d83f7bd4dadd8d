// Cast between float32 and float16 (see elementwise.h): one element per thread, through float32
// (exact from float16), rounded once to nearest-even when the target is float16.
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/elementwise.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename From, typename To>
__global__ void cast_kernel(const From* __restrict__ x, To* __restrict__ y, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    store_f(y, i, load_f(x, i));
}

template <typename From, typename To>
void launch(const void* x, void* y, int64_t n, cudaStream_t s) {
  cast_kernel<From, To><<<elementwise_blocks(n), kElementwiseBlock, 0, s>>>(static_cast<const From*>(x), static_cast<To*>(y), n);
}

}  // namespace

Status cast_float(DType from, DType to, const void* x, void* y, int64_t n, Stream stream) {
  HI_RETURN_IF(n < 0, kInvalidArgument, "GPU Cast: element count must be >= 0, got ", n);
  const auto is_float = [](DType t) { return t == DType::kFloat32 || t == DType::kFloat16; };
  HI_RETURN_IF(!is_float(from) || !is_float(to), kUnsupported, "GPU Cast: no kernel from ", dtype_name(from), " to ",
               dtype_name(to), " (float32, float16)");
  if (n == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU Cast: null buffer for ", n, " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  const bool half_in = from == DType::kFloat16, half_out = to == DType::kFloat16;
  if (!half_in && !half_out) launch<float, float>(x, y, n, s);
  else if (!half_in) launch<float, __half>(x, y, n, s);
  else if (!half_out) launch<__half, float>(x, y, n, s);
  else launch<__half, __half>(x, y, n, s);
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
