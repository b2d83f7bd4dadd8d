// Gather along one axis (see copy.h): one thread per output element.
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/copy.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename Word>
__global__ void gather_kernel(const Word* __restrict__ data, const int64_t* __restrict__ indices, Word* __restrict__ y,
                              int64_t axis_dim, int64_t inner, int64_t n_indices, int64_t n, int* bad_index) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    const int64_t r = e % inner;
    const int64_t i = (e / inner) % n_indices;
    const int64_t o = e / (inner * n_indices);
    int64_t idx = indices[i];
    if (idx < 0) idx += axis_dim;
    if (idx < 0 || idx >= axis_dim) {
      y[e] = Word(0);
      if (bad_index) *bad_index = 1;
      continue;
    }
    y[e] = data[(o * axis_dim + idx) * inner + r];
  }
}

template <typename Word>
void launch(const void* data, const int64_t* indices, void* y, int64_t axis_dim, int64_t inner, int64_t n_indices,
            int64_t n, int* bad_index, cudaStream_t s) {
  launch_kernel<gather_kernel<Word>>(elementwise_blocks(n), kElementwiseBlock, 0, s, static_cast<const Word*>(data),
                                     indices, static_cast<Word*>(y), axis_dim, inner, n_indices, n, bad_index);
}

}  // namespace

Status gather(int elem_size, const void* data, const int64_t* indices, void* y, int64_t outer, int64_t axis_dim,
              int64_t inner, int64_t n_indices, int* bad_index, Stream stream) {
  HI_RETURN_IF(outer < 0 || axis_dim < 0 || inner < 0 || n_indices < 0, kInvalidArgument,
               "GPU Gather: negative extent (outer ", outer, ", axis ", axis_dim, ", inner ", inner, ", indices ",
               n_indices, ")");
  const int64_t n = outer * n_indices * inner;
  if (n == 0) return Status::ok();
  HI_RETURN_IF(data == nullptr || indices == nullptr || y == nullptr, kInvalidArgument, "GPU Gather: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  const bool ok = with_word(elem_size, [&](auto word) {
    launch<decltype(word)>(data, indices, y, axis_dim, inner, n_indices, n, bad_index, s);
  });
  HI_RETURN_IF(!ok, kUnsupported, "GPU Gather: element size ", elem_size, " (1, 2, 4 or 8 bytes)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
