// LayerNorm and RMSNormalization over rows (see rows.h): one block per row; the mean (not for
// RMS), then the mean squared deviation, then the normalised, scaled and shifted write, all in
// float32.
// clang-format off
#include "backends/gpu/kernels/row_reduce.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/rows.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename T>
__global__ void layer_norm_kernel(const T* x, const T* scale, const T* bias, T* y, int64_t cols, float epsilon,
                                  bool rms, RowStats stats) {
  __shared__ float scratch[kRowBlock];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * cols;
  float mean = 0.f;
  if (!rms) {
    float s = 0.f;
    for (int64_t c = threadIdx.x; c < cols; c += kRowBlock) s += load_f(x, base + c);
    mean = block_reduce(s, scratch, SumOp{}) / static_cast<float>(cols);
  }
  float q = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kRowBlock) {
    const float d = load_f(x, base + c) - mean;
    q += d * d;
  }
  const float var = block_reduce(q, scratch, SumOp{}) / static_cast<float>(cols);
  const float inv_std = 1.f / sqrtf(var + epsilon);
  if (threadIdx.x == 0 && stats.mean) stats.mean[blockIdx.x] = mean;
  if (threadIdx.x == 0 && stats.inv_std) stats.inv_std[blockIdx.x] = inv_std;
  for (int64_t c = threadIdx.x; c < cols; c += kRowBlock) {
    float v = (load_f(x, base + c) - mean) * inv_std * load_f(scale, c);
    if (bias) v += load_f(bias, c);
    store_f(y, base + c, v);
  }
}

template <typename T>
void launch(const void* x, const void* scale, const void* bias, void* y, int64_t rows, int64_t cols, float epsilon,
            bool rms, RowStats stats, cudaStream_t s) {
  launch_kernel<layer_norm_kernel<T>>(row_blocks(rows), kRowBlock, 0, s, static_cast<const T*>(x),
                                      static_cast<const T*>(scale), static_cast<const T*>(bias), static_cast<T*>(y),
                                      cols, epsilon, rms, stats);
}

}  // namespace

Status layer_norm_rows(DType dtype, const void* x, const void* scale, const void* bias, void* y, int64_t rows,
                       int64_t cols, float epsilon, Stream stream, bool rms, RowStats stats) {
  HI_RETURN_IF(rows < 0 || cols < 0, kInvalidArgument, "GPU LayerNorm: rows and cols must be >= 0, got ", rows, " x ",
               cols);
  if (rows == 0 || cols == 0) return Status::ok();
  HI_RETURN_IF(rows > 0x7fffffff, kUnsupported, "GPU LayerNorm: ", rows, " rows is above the grid limit of 2^31 - 1");
  HI_RETURN_IF(x == nullptr || scale == nullptr || y == nullptr, kInvalidArgument, "GPU LayerNorm: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == DType::kFloat32) launch<float>(x, scale, bias, y, rows, cols, epsilon, rms, stats, s);
  else if (dtype == DType::kFloat16) launch<__half>(x, scale, bias, y, rows, cols, epsilon, rms, stats, s);
  else
    return error(StatusCode::kUnsupported, "GPU LayerNorm: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
