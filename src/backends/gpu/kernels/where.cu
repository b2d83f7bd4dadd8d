// Where (see elementwise.h): one thread per output element, its three source offsets from the
// output index decomposed over the output's dims (innermost first); elements move as words of
// their size (1, 2, 4 or 8 bytes).
#include <algorithm>
#include <string>

// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/elementwise.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename Word>
__global__ void where_kernel(const bool* __restrict__ c, const Word* __restrict__ x, const Word* __restrict__ y_else,
                             Word* __restrict__ y, WhereIndex index) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < index.numel; i += stride) {
    int64_t ci = 0, xi = 0, yi = 0, rest = i;
    for (int d = index.rank - 1; d >= 0; --d) {
      const int64_t coord = rest % index.dims[d];
      rest /= index.dims[d];
      ci += coord * index.strides[0][d];
      xi += coord * index.strides[1][d];
      yi += coord * index.strides[2][d];
    }
    y[i] = c[ci] ? x[xi] : y_else[yi];
  }
}

template <typename Word>
void launch(const WhereIndex& index, const void* c, const void* x, const void* y_else, void* y, cudaStream_t s) {
  launch_kernel<where_kernel<Word>>(elementwise_blocks(index.numel), kElementwiseBlock, 0, s,
                                    static_cast<const bool*>(c), static_cast<const Word*>(x),
                                    static_cast<const Word*>(y_else), static_cast<Word*>(y), index);
}

}  // namespace

Result<WhereIndex> make_where_index(const Shape& cond, const Shape& x, const Shape& y_else) {
  const Shape* shapes[3] = {&cond, &x, &y_else};
  const size_t rank = std::max(cond.size(), std::max(x.size(), y_else.size()));
  HI_RETURN_IF(rank > static_cast<size_t>(kMaxBroadcastRank), kUnsupported, "GPU Where: rank ", rank,
               " is above the kernel's ", kMaxBroadcastRank);
  WhereIndex index;
  index.rank = static_cast<int>(rank);
  index.numel = 1;
  int64_t stride[3] = {1, 1, 1};
  for (size_t k = 0; k < rank; ++k) {  // k counts from the innermost dim
    const size_t d = rank - 1 - k;
    int64_t dim[3], out = 1;
    for (int t = 0; t < 3; ++t) {
      const Shape& s = *shapes[t];
      dim[t] = k < s.size() ? s[s.size() - 1 - k] : 1;
      if (dim[t] != 1) {
        HI_RETURN_IF(out != 1 && out != dim[t], kInvalidArgument, "Where: shapes ", shape_to_string(cond), ", ",
                     shape_to_string(x), " and ", shape_to_string(y_else), " do not broadcast at dim ", d);
        out = dim[t];
      }
    }
    index.dims[d] = out;
    for (int t = 0; t < 3; ++t) {
      index.strides[t][d] = dim[t] == 1 ? 0 : stride[t];
      stride[t] *= dim[t];
    }
    index.numel *= out;
  }
  return index;
}

Status where(const WhereIndex& index, int elem_size, const void* cond, const void* x, const void* y_else, void* y,
             Stream stream) {
  if (index.numel == 0) return Status::ok();
  HI_RETURN_IF(cond == nullptr || x == nullptr || y_else == nullptr || y == nullptr, kInvalidArgument,
               "GPU Where: null buffer for ", index.numel, " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  switch (elem_size) {
    case 1: launch<uint8_t>(index, cond, x, y_else, y, s); break;
    case 2: launch<uint16_t>(index, cond, x, y_else, y, s); break;
    case 4: launch<uint32_t>(index, cond, x, y_else, y, s); break;
    case 8: launch<uint64_t>(index, cond, x, y_else, y, s); break;
    default: return error(StatusCode::kUnsupported, "GPU Where: element size ", elem_size, " (1, 2, 4 or 8 bytes)");
  }
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
