// Resize (see resize.h): one thread per output element, its taps from resize_element().
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/resize.h"
// clang-format on

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace hi::gpu::HI_GPU_NS {
namespace {

// Host and device, like resize_element() that calls it (an HD function calling a device-only one
// is a warning in nvcc).
struct LoadF32 {
  const float* x;
  __host__ __device__ float operator()(int64_t i) const { return x[i]; }
};
struct LoadF16 {
  const __half* x;
  __host__ __device__ float operator()(int64_t i) const { return __half2float(x[i]); }
};
template <typename T>
using Loader = std::conditional_t<std::is_same_v<T, float>, LoadF32, LoadF16>;

template <typename T>
__global__ void resize_kernel(const T* __restrict__ x, T* __restrict__ y, ResizeDesc d, int64_t n) {
  const Loader<T> load{x};
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    store_f(y, i, resize_element(d, load, i));
}

}  // namespace

Result<ResizeDesc> make_resize_desc(const Shape& x, const Shape& y, const std::vector<double>& scales, bool linear,
                                    ResizeCoordMode coord, ResizeNearestMode nearest) {
  const size_t rank = x.size();
  HI_RETURN_IF(rank > static_cast<size_t>(kMaxResizeRank), kUnsupported, "GPU Resize: rank ", rank, " is above ",
               kMaxResizeRank);
  HI_RETURN_IF(y.size() != rank || scales.size() != rank, kInvalidArgument, "GPU Resize: ", shape_to_string(x), " to ",
               shape_to_string(y), " with ", scales.size(), " scales");
  ResizeDesc d;
  d.rank = static_cast<int>(rank);
  d.linear = linear;
  d.coord = coord;
  d.nearest = nearest;
  for (size_t k = 0; k < rank; ++k) {
    HI_RETURN_IF(x[k] == 0 && y[k] > 0, kInvalidArgument, "cannot resize dim ", k, " of ", shape_to_string(x),
                 " from 0 to ", y[k], " elements");
    d.in_dims[k] = x[k];
    d.out_dims[k] = y[k];
    d.scales[k] = scales[k];
    // The CPU's test for an axis it leaves alone.
    const bool unit_scale = std::abs(scales[k] - 1.0) <= 1e-9 * std::max(1.0, std::abs(scales[k]));
    d.resized[k] = !(unit_scale && x[k] == y[k]);
  }
  return d;
}

Status resize(const ResizeDesc& d, DType dtype, const void* x, void* y, Stream stream) {
  HI_RETURN_IF(d.rank < 0 || d.rank > kMaxResizeRank, kInvalidArgument, "GPU Resize: rank ", d.rank, " outside 0..",
               kMaxResizeRank);
  int64_t n = 1;
  for (int k = 0; k < d.rank; ++k) n *= d.out_dims[k];
  if (n == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU Resize: null buffer for ", n, " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned blocks = elementwise_blocks(n);
  if (dtype == DType::kFloat32)
    launch_kernel<resize_kernel<float>>(blocks, kElementwiseBlock, 0, s, static_cast<const float*>(x),
                                        static_cast<float*>(y), d, n);
  else if (dtype == DType::kFloat16)
    launch_kernel<resize_kernel<__half>>(blocks, kElementwiseBlock, 0, s, static_cast<const __half*>(x),
                                         static_cast<__half*>(y), d, n);
  else return error(StatusCode::kUnsupported, "GPU Resize: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
