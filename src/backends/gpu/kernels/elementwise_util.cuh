// Shared by the elementwise kernels: float32 / float16 loads and stores (compute is always in
// float32) and the 1-D launch shape.
#pragma once

#include <algorithm>
#include <cstdint>

#include "backends/gpu/common.cuh"

namespace hi::gpu::HI_GPU_NS {

__device__ __forceinline__ float load_f(const float* p, int64_t i) { return p[i]; }
__device__ __forceinline__ float load_f(const __half* p, int64_t i) { return __half2float(p[i]); }
__device__ __forceinline__ void store_f(float* p, int64_t i, float v) { p[i] = v; }
__device__ __forceinline__ void store_f(__half* p, int64_t i, float v) { p[i] = __float2half_rn(v); }

// A grid-stride loop of 256-thread blocks (whole warps at warp size 32 and 64), the grid capped
// so any element count fits in gridDim.x.
constexpr int kElementwiseBlock = 256;
inline unsigned elementwise_blocks(int64_t n) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((n + kElementwiseBlock - 1) / kElementwiseBlock, 65535)));
}

}  // namespace hi::gpu::HI_GPU_NS
