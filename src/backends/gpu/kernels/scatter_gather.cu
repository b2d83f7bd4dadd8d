// GatherElements, ScatterElements and ScatterND (see copy.h): one thread per output (gather) or
// update (scatter) element; elements move as words of their size.
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/copy.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

// The data offset element e of the indices addresses along the axis, or -1 when its index is
// out of range.
__device__ __forceinline__ int64_t element_offset(const ElementsIndex& d, const int64_t* indices, int64_t e) {
  int64_t off = 0, rest = e;
  for (int k = d.rank - 1; k >= 0; --k) {
    int64_t coord = rest % d.dims[k];
    rest /= d.dims[k];
    if (k == d.axis) {
      coord = indices[e];
      if (coord < 0) coord += d.axis_dim;
      if (coord < 0 || coord >= d.axis_dim) return -1;
    }
    off += coord * d.data_strides[k];
  }
  return off;
}

template <typename Word>
__global__ void gather_elements_kernel(const Word* __restrict__ data, const int64_t* __restrict__ indices,
                                       Word* __restrict__ y, ElementsIndex d, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    const int64_t off = element_offset(d, indices, e);
    y[e] = off < 0 ? Word(0) : data[off];
  }
}

template <typename Word>
__global__ void scatter_elements_kernel(const int64_t* __restrict__ indices, const Word* __restrict__ updates,
                                        Word* __restrict__ y, ElementsIndex d, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    const int64_t off = element_offset(d, indices, e);
    if (off >= 0) y[off] = updates[e];
  }
}

template <typename Word>
__global__ void scatter_nd_kernel(const int64_t* __restrict__ indices, const Word* __restrict__ updates,
                                  Word* __restrict__ y, ScatterNdIndex d, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    const int64_t s = e / d.slice;
    int64_t off = e % d.slice;
    bool ok = true;
    for (int j = 0; j < d.k; ++j) {
      int64_t idx = indices[s * d.k + j];
      if (idx < 0) idx += d.data_dims[j];
      ok = ok && idx >= 0 && idx < d.data_dims[j];
      off += idx * d.data_strides[j];
    }
    if (ok) y[off] = updates[e];
  }
}

}  // namespace

Status gather_elements(int elem_size, const void* data, const int64_t* indices, void* y, const ElementsIndex& index,
                       int64_t n, Stream stream) {
  if (n == 0) return Status::ok();
  HI_RETURN_IF(!data || !indices || !y, kInvalidArgument, "GPU GatherElements: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  const bool ok = with_word(elem_size, [&](auto w) {
    using Word = decltype(w);
    launch_kernel<gather_elements_kernel<Word>>(elementwise_blocks(n), kElementwiseBlock, 0, s,
                                                static_cast<const Word*>(data), indices, static_cast<Word*>(y), index,
                                                n);
  });
  HI_RETURN_IF(!ok, kUnsupported, "GPU GatherElements: element size ", elem_size, " (1, 2, 4 or 8 bytes)");
  return HI_GPU_CHECK(cudaGetLastError());
}

Status scatter_elements(int elem_size, const int64_t* indices, const void* updates, void* y, const ElementsIndex& index,
                        int64_t n, Stream stream) {
  if (n == 0) return Status::ok();
  HI_RETURN_IF(!indices || !updates || !y, kInvalidArgument, "GPU ScatterElements: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  const bool ok = with_word(elem_size, [&](auto w) {
    using Word = decltype(w);
    launch_kernel<scatter_elements_kernel<Word>>(elementwise_blocks(n), kElementwiseBlock, 0, s, indices,
                                                 static_cast<const Word*>(updates), static_cast<Word*>(y), index, n);
  });
  HI_RETURN_IF(!ok, kUnsupported, "GPU ScatterElements: element size ", elem_size, " (1, 2, 4 or 8 bytes)");
  return HI_GPU_CHECK(cudaGetLastError());
}

Status scatter_nd(int elem_size, const int64_t* indices, const void* updates, void* y, const ScatterNdIndex& index,
                  int64_t n, Stream stream) {
  if (n == 0) return Status::ok();
  HI_RETURN_IF(!indices || !updates || !y || index.slice <= 0, kInvalidArgument,
               "GPU ScatterND: null buffer or empty slice");
  const auto s = static_cast<cudaStream_t>(stream);
  const bool ok = with_word(elem_size, [&](auto w) {
    using Word = decltype(w);
    launch_kernel<scatter_nd_kernel<Word>>(elementwise_blocks(n), kElementwiseBlock, 0, s, indices,
                                           static_cast<const Word*>(updates), static_cast<Word*>(y), index, n);
  });
  HI_RETURN_IF(!ok, kUnsupported, "GPU ScatterND: element size ", elem_size, " (1, 2, 4 or 8 bytes)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
