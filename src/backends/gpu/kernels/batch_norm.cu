// BatchNormalization in inference mode (see elementwise.h): one thread per element, its channel
// from the index; the parameters are read in their own dtype and the arithmetic is float32.
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/elementwise.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

__device__ __forceinline__ float load_param(const void* p, bool half, int64_t i) {
  return half ? __half2float(static_cast<const __half*>(p)[i]) : static_cast<const float*>(p)[i];
}

template <typename T>
__global__ void batch_norm_kernel(const T* __restrict__ x, const void* __restrict__ scale,
                                  const void* __restrict__ bias, const void* __restrict__ mean,
                                  const void* __restrict__ var, T* __restrict__ y, BatchNormDesc d, int64_t n) {
  const bool half_scale = d.scale_dtype == DType::kFloat16, half_stats = d.stats_dtype == DType::kFloat16;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t c = (i / d.inner) % d.channels;
    const int64_t j = d.spatial ? c : c * d.inner + i % d.inner;
    const float inv_std = 1.f / sqrtf(load_param(var, half_stats, j) + d.epsilon);
    const float v = (load_f(x, i) - load_param(mean, half_stats, j)) * inv_std * load_param(scale, half_scale, j) +
                    load_param(bias, half_scale, j);
    store_f(y, i, v);
  }
}

}  // namespace

Status batch_norm(const BatchNormDesc& d, DType dtype, const void* x, const void* scale, const void* bias,
                  const void* mean, const void* var, void* y, Stream stream) {
  HI_RETURN_IF(d.outer < 0 || d.channels < 0 || d.inner < 0, kInvalidArgument,
               "GPU BatchNormalization: negative extent (", d.outer, ", ", d.channels, ", ", d.inner, ")");
  const auto is_float = [](DType t) { return t == DType::kFloat32 || t == DType::kFloat16; };
  HI_RETURN_IF(!is_float(dtype) || !is_float(d.scale_dtype) || !is_float(d.stats_dtype), kUnsupported,
               "GPU BatchNormalization: no kernel for ", dtype_name(dtype), " with ", dtype_name(d.scale_dtype),
               " scale and ", dtype_name(d.stats_dtype), " statistics (float32, float16)");
  const int64_t n = d.outer * d.channels * d.inner;
  if (n == 0) return Status::ok();
  HI_RETURN_IF(!x || !scale || !bias || !mean || !var || !y, kInvalidArgument, "GPU BatchNormalization: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned blocks = elementwise_blocks(n);
  if (dtype == DType::kFloat32)
    launch_kernel<batch_norm_kernel<float>>(blocks, kElementwiseBlock, 0, s, static_cast<const float*>(x), scale, bias,
                                            mean, var, static_cast<float*>(y), d, n);
  else
    launch_kernel<batch_norm_kernel<__half>>(blocks, kElementwiseBlock, 0, s, static_cast<const __half*>(x), scale,
                                             bias, mean, var, static_cast<__half*>(y), d, n);
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
