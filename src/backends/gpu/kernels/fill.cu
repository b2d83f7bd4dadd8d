// Fill kernels (see fill.h).
//
// Thread mapping: a 1-D grid-stride loop; thread t of block b writes elements
// b * blockDim + t, then every gridDim * blockDim after it. Blocks of 256 threads (a whole
// number of warps at both warp sizes, 32 and 64); the grid is capped so that any n fits in
// gridDim.x, and a capped grid still covers every element through the stride.
#include <algorithm>

#include "backends/gpu/common.cuh"
#include "backends/gpu/kernels/fill.h"

namespace hi::gpu::HI_GPU_NS {

namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 65535;  // enough to fill every SM/CU many times over

__global__ void fill_kernel(float* __restrict__ dst, int64_t n, float value) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = value;
}

struct Values {
  int64_t v[kMaxFillValues];
};

__global__ void fill_values_kernel(int64_t* __restrict__ dst, int n, Values values) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < n) dst[i] = values.v[i];
}

}  // namespace

Status fill_i64_values(int64_t* dst, const int64_t* values, int n, Stream stream) {
  HI_RETURN_IF(n < 0 || n > kMaxFillValues, kInvalidArgument, "fill_i64_values: ", n, " values (0 to ", kMaxFillValues,
               ")");
  if (n == 0) return Status::ok();
  HI_RETURN_IF(dst == nullptr || values == nullptr, kInvalidArgument, "fill_i64_values: null buffer for ", n,
               " values");
  Values v{};
  for (int i = 0; i < n; ++i) v.v[i] = values[i];
  launch_kernel<fill_values_kernel>(1, kMaxFillValues, 0, static_cast<cudaStream_t>(stream), dst, n, v);
  return HI_GPU_CHECK(cudaGetLastError());
}

Status fill_f32(float* dst, int64_t n, float value, Stream stream) {
  HI_RETURN_IF(n < 0, kInvalidArgument, "fill_f32: element count must be >= 0, got ", n);
  if (n == 0) return Status::ok();
  HI_RETURN_IF(dst == nullptr, kInvalidArgument, "fill_f32: null destination for ", n, " elements");
  const auto blocks = static_cast<unsigned>(std::min<int64_t>((n + kBlock - 1) / kBlock, kMaxBlocks));
  launch_kernel<fill_kernel>(blocks, kBlock, 0, static_cast<cudaStream_t>(stream), dst, n, value);
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
