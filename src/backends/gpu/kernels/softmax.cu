// Softmax and log-softmax over rows (see rows.h): one block per row, three passes over the row
// (max, sum of exponentials, write), all in float32.
// clang-format off
#include "backends/gpu/kernels/row_reduce.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/rows.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename T>
__global__ void softmax_kernel(const T* x, T* y, int64_t cols, bool log) {
  __shared__ float scratch[kRowBlock];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += kRowBlock) m = fmaxf(m, load_f(x, base + c));
  m = block_reduce(m, scratch, MaxOp{});
  float s = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kRowBlock) s += expf(load_f(x, base + c) - m);
  s = block_reduce(s, scratch, SumOp{});
  const float log_s = logf(s), inv_s = 1.f / s;
  for (int64_t c = threadIdx.x; c < cols; c += kRowBlock) {
    const float v = load_f(x, base + c) - m;
    store_f(y, base + c, log ? v - log_s : expf(v) * inv_s);
  }
}

// One thread per (outer, inner) line of n elements, inner apart.
template <typename T>
__global__ void softmax_axis_kernel(const T* x, T* y, int64_t lines, int64_t n, int64_t inner, SoftmaxMode mode) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t line = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < lines; line += stride) {
    const int64_t base = (line / inner) * n * inner + line % inner;
    // From the first element, as the CPU op: a leading NaN stays the maximum (and Hardmax's pick).
    float m = load_f(x, base);
    int64_t arg = 0;
    for (int64_t k = 1; k < n; ++k) {
      const float v = load_f(x, base + k * inner);
      if (v > m) {
        m = v;
        arg = k;
      }
    }
    if (mode == SoftmaxMode::kHardmax) {
      for (int64_t k = 0; k < n; ++k) store_f(y, base + k * inner, k == arg ? 1.f : 0.f);
      continue;
    }
    float s = 0.f;
    for (int64_t k = 0; k < n; ++k) s += expf(load_f(x, base + k * inner) - m);
    const float log_s = logf(s), inv_s = 1.f / s;
    for (int64_t k = 0; k < n; ++k) {
      const float v = load_f(x, base + k * inner) - m;
      store_f(y, base + k * inner, mode == SoftmaxMode::kLogSoftmax ? v - log_s : expf(v) * inv_s);
    }
  }
}

}  // namespace

Status softmax_axis(DType dtype, const void* x, void* y, int64_t outer, int64_t n, int64_t inner, SoftmaxMode mode,
                    Stream stream) {
  HI_RETURN_IF(outer < 0 || n < 0 || inner < 0, kInvalidArgument, "GPU softmax: dims must be >= 0, got ", outer, " x ",
               n, " x ", inner);
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU softmax: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned blocks = elementwise_blocks(lines);
  if (dtype == DType::kFloat32)
    launch_kernel<softmax_axis_kernel<float>>(blocks, kElementwiseBlock, 0, s, static_cast<const float*>(x),
                                              static_cast<float*>(y), lines, n, inner, mode);
  else if (dtype == DType::kFloat16)
    launch_kernel<softmax_axis_kernel<__half>>(blocks, kElementwiseBlock, 0, s, static_cast<const __half*>(x),
                                               static_cast<__half*>(y), lines, n, inner, mode);
  else return error(StatusCode::kUnsupported, "GPU softmax: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

Status softmax_rows(DType dtype, const void* x, void* y, int64_t rows, int64_t cols, bool log, Stream stream) {
  HI_RETURN_IF(rows < 0 || cols < 0, kInvalidArgument, "GPU softmax: rows and cols must be >= 0, got ", rows, " x ",
               cols);
  if (rows == 0 || cols == 0) return Status::ok();
  HI_RETURN_IF(rows > 0x7fffffff, kUnsupported, "GPU softmax: ", rows, " rows is above the grid limit of 2^31 - 1");
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU softmax: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == DType::kFloat32)
    launch_kernel<softmax_kernel<float>>(row_blocks(rows), kRowBlock, 0, s, static_cast<const float*>(x),
                                         static_cast<float*>(y), cols, log);
  else if (dtype == DType::kFloat16)
    launch_kernel<softmax_kernel<__half>>(row_blocks(rows), kRowBlock, 0, s, static_cast<const __half*>(x),
                                          static_cast<__half*>(y), cols, log);
  else return error(StatusCode::kUnsupported, "GPU softmax: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
