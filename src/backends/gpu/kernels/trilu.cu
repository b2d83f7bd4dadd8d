// Trilu (see index_ops.h): one thread per element; the element's (row, column) in its last two
// dims decides whether it is kept or zeroed. Elements move as words of their size.
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/index_ops.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename Word>
__global__ void trilu_kernel(const Word* __restrict__ x, Word* __restrict__ y, int64_t n, int64_t rows, int64_t cols,
                             int64_t k, bool upper) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t c = i % cols, r = (i / cols) % rows;
    y[i] = trilu_keeps(r, c, k, upper) ? x[i] : Word(0);
  }
}

template <typename Word>
void launch(const void* x, void* y, int64_t n, int64_t rows, int64_t cols, int64_t k, bool upper, cudaStream_t s) {
  launch_kernel<trilu_kernel<Word>>(elementwise_blocks(n), kElementwiseBlock, 0, s, static_cast<const Word*>(x),
                                    static_cast<Word*>(y), n, rows, cols, k, upper);
}

}  // namespace

Status trilu(int elem_size, const void* x, void* y, int64_t n, int64_t rows, int64_t cols, int64_t k, bool upper,
             Stream stream) {
  HI_RETURN_IF(n < 0 || rows < 0 || cols < 0, kInvalidArgument, "GPU Trilu: negative size");
  if (n == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU Trilu: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  const bool ok = with_word(elem_size, [&](auto word) { launch<decltype(word)>(x, y, n, rows, cols, k, upper, s); });
  HI_RETURN_IF(!ok, kUnsupported, "GPU Trilu: element size ", elem_size, " (1, 2, 4 or 8 bytes)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
