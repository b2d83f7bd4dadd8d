// 2-D pooling (see pool.h): one thread per output element walks its window's taps inside the input.
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/pool.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <PoolKind K, typename T>
__global__ void pool2d_kernel(const T* __restrict__ x, T* __restrict__ y, Pool2dDesc d, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    const int64_t ow = e % d.out_w, oh = (e / d.out_w) % d.out_h, nc = e / (d.out_w * d.out_h);
    const T* plane = x + nc * d.in_h * d.in_w;
    float acc = K == PoolKind::kMax ? -INFINITY : 0.f;
    const int64_t h0 = oh * d.stride_h - d.pad_top, w0 = ow * d.stride_w - d.pad_left;
    const PoolTaps rows = pool_taps(h0, d.in_h, d.pad_bottom, d.kernel_h, d.dilation_h);
    const PoolTaps cols = pool_taps(w0, d.in_w, d.pad_right, d.kernel_w, d.dilation_w);
    const int64_t inside = (rows.end - rows.first) * (cols.end - cols.first), padded = rows.padded * cols.padded;
    for (int64_t r = rows.first; r < rows.end; ++r) {
      const int64_t ih = h0 + r * d.dilation_h;
      for (int64_t c = cols.first; c < cols.end; ++c) {
        const float v = load_f(plane, ih * d.in_w + w0 + c * d.dilation_w);
        if constexpr (K == PoolKind::kMax) acc = (v != v || acc != acc) ? v + acc : fmaxf(acc, v);
        else acc += v;
      }
    }
    if constexpr (K == PoolKind::kAverage) {
      const int64_t count = d.count_include_pad ? padded : inside;
      acc = count > 0 ? acc / static_cast<float>(count) : 0.f;
    }
    store_f(y, e, acc);
  }
}

template <PoolKind K, typename T>
void launch(const Pool2dDesc& d, const void* x, void* y, int64_t n, cudaStream_t s) {
  launch_kernel<pool2d_kernel<K, T>>(elementwise_blocks(n), kElementwiseBlock, 0, s, static_cast<const T*>(x),
                                     static_cast<T*>(y), d, n);
}

template <typename T>
void dispatch(PoolKind kind, const Pool2dDesc& d, const void* x, void* y, int64_t n, cudaStream_t s) {
  if (kind == PoolKind::kMax) launch<PoolKind::kMax, T>(d, x, y, n, s);
  else launch<PoolKind::kAverage, T>(d, x, y, n, s);
}

}  // namespace

Status pool2d(PoolKind kind, DType dtype, const Pool2dDesc& d, const void* x, void* y, Stream stream) {
  HI_RETURN_IF(d.batch < 0 || d.channels < 0 || d.in_h < 0 || d.in_w < 0 || d.out_h < 0 || d.out_w < 0 ||
                   d.kernel_h <= 0 || d.kernel_w <= 0 || d.stride_h <= 0 || d.stride_w <= 0 || d.dilation_h <= 0 ||
                   d.dilation_w <= 0 || d.pad_top < 0 || d.pad_left < 0 || d.pad_bottom < 0 || d.pad_right < 0,
               kInvalidArgument, "GPU pooling: invalid geometry (kernel ", d.kernel_h, "x", d.kernel_w, ", strides ",
               d.stride_h, "x", d.stride_w, ", dilations ", d.dilation_h, "x", d.dilation_w, ", output ", d.out_h, "x",
               d.out_w, ")");
  const int64_t n = d.batch * d.channels * d.out_h * d.out_w;
  if (n == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU pooling: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == DType::kFloat32) dispatch<float>(kind, d, x, y, n, s);
  else if (dtype == DType::kFloat16) dispatch<__half>(kind, d, x, y, n, s);
  else return error(StatusCode::kUnsupported, "GPU pooling: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
