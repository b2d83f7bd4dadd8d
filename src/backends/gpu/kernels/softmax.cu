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

}  // namespace

Status softmax_rows(DType dtype, const void* x, void* y, int64_t rows, int64_t cols, bool log, Stream stream) {
  HI_RETURN_IF(rows < 0 || cols < 0, kInvalidArgument, "GPU softmax: rows and cols must be >= 0, got ", rows, " x ", cols);
  if (rows == 0 || cols == 0) return Status::ok();
  HI_RETURN_IF(rows > 0x7fffffff, kUnsupported, "GPU softmax: ", rows, " rows is above the grid limit of 2^31 - 1");
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU softmax: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == DType::kFloat32)
    softmax_kernel<float><<<row_blocks(rows), kRowBlock, 0, s>>>(static_cast<const float*>(x), static_cast<float*>(y), cols, log);
  else if (dtype == DType::kFloat16)
    softmax_kernel<__half><<<row_blocks(rows), kRowBlock, 0, s>>>(static_cast<const __half*>(x), static_cast<__half*>(y), cols, log);
  else return error(StatusCode::kUnsupported, "GPU softmax: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
