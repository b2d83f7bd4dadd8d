// The strided copy (see copy.h): one thread per element of the block, the coordinate decomposed
// over its dims, innermost first; the element moved as a 1-, 2-, 4- or 8-byte word.
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/copy.h"
// clang-format on

#include <algorithm>
#include <string>
#include <vector>

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename Word>
__global__ void strided_copy_kernel(const Word* __restrict__ src, Word* __restrict__ dst, StridedCopy c, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    int64_t s = c.src_offset, d = c.dst_offset, rest = i;
    for (int k = c.rank - 1; k >= 0; --k) {
      const int64_t coord = rest % c.dims[k];
      rest /= c.dims[k];
      s += coord * c.src_strides[k];
      d += coord * c.dst_strides[k];
    }
    dst[d] = src[s];
  }
}

template <typename Word>
void launch(const StridedCopy& c, const void* src, void* dst, int64_t n, cudaStream_t s) {
  launch_kernel<strided_copy_kernel<Word>>(elementwise_blocks(n), kElementwiseBlock, 0, s,
                                           static_cast<const Word*>(src), static_cast<Word*>(dst), c, n);
}

}  // namespace

int64_t StridedCopy::numel() const {
  int64_t n = 1;
  for (int k = 0; k < rank; ++k) n *= dims[k];
  return n;
}

void contiguous_strides(const Shape& shape, int64_t* strides) {
  int64_t s = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = s;
    s *= shape[k];
  }
}

Result<StridedCopy> transpose_copy(const Shape& x_shape, const std::vector<int64_t>& perm) {
  const size_t rank = x_shape.size();
  std::string perm_text;
  for (int64_t p : perm) perm_text += (perm_text.empty() ? "" : ", ") + std::to_string(p);
  HI_RETURN_IF(perm.size() != rank, kInvalidArgument, "Transpose: perm [", perm_text, "] has ", perm.size(),
               " entries for a rank-", rank, " input");
  HI_RETURN_IF(rank > static_cast<size_t>(kMaxCopyRank), kUnsupported, "GPU Transpose: rank ", rank, " is above ",
               kMaxCopyRank);
  StridedCopy c;
  c.rank = static_cast<int>(rank);
  int64_t x_strides[kMaxCopyRank];
  contiguous_strides(x_shape, x_strides);
  std::vector<bool> seen(rank, false);
  Shape y_shape(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t p = perm[k];
    HI_RETURN_IF(p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)], kInvalidArgument,
                 "Transpose: perm [", perm_text, "] is not a permutation of 0..", rank - 1);
    seen[static_cast<size_t>(p)] = true;
    y_shape[k] = x_shape[static_cast<size_t>(p)];
    c.dims[k] = y_shape[k];
    c.src_strides[k] = x_strides[p];
  }
  contiguous_strides(y_shape, c.dst_strides);
  return c;
}

Result<StridedCopy> slice_copy(const Shape& x_shape, const std::vector<int64_t>& starts,
                               const std::vector<int64_t>& ends, const std::vector<int64_t>& axes,
                               const std::vector<int64_t>& steps) {
  const int64_t rank = static_cast<int64_t>(x_shape.size());
  HI_RETURN_IF(rank > kMaxCopyRank, kUnsupported, "GPU Slice: rank ", rank, " is above ", kMaxCopyRank);
  HI_RETURN_IF(ends.size() != starts.size() || (!axes.empty() && axes.size() != starts.size()) ||
                   (!steps.empty() && steps.size() != starts.size()),
               kInvalidArgument, "Slice: starts, ends, axes and steps must have the same length (", starts.size(), ", ",
               ends.size(), ", ", axes.size(), ", ", steps.size(), ")");
  StridedCopy c;
  c.rank = static_cast<int>(rank);
  int64_t x_strides[kMaxCopyRank];
  contiguous_strides(x_shape, x_strides);
  for (int64_t k = 0; k < rank; ++k) {
    c.dims[k] = x_shape[static_cast<size_t>(k)];
    c.src_strides[k] = x_strides[k];
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis = axes.empty() ? static_cast<int64_t>(i) : axes[i];
    if (axis < 0) axis += rank;
    HI_RETURN_IF(axis < 0 || axis >= rank || seen[static_cast<size_t>(axis)], kInvalidArgument, "Slice: axis ",
                 axes.empty() ? static_cast<int64_t>(i) : axes[i], " is out of range or repeated for rank ", rank);
    seen[static_cast<size_t>(axis)] = true;
    const int64_t step = steps.empty() ? 1 : steps[i];
    HI_RETURN_IF(step == 0, kInvalidArgument, "Slice: step for axis ", axis, " is 0");
    const int64_t dim = x_shape[static_cast<size_t>(axis)];
    // The CPU op's window (ops/slice.cc): counts without overflow for steps near the int64 limits.
    int64_t start = 0, count = 0;
    if (dim > 0) {
      start = starts[i] < 0 ? starts[i] + dim : starts[i];
      int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
      if (step > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        end = std::clamp<int64_t>(end, 0, dim);
        if (end > start)
          count = static_cast<int64_t>(static_cast<uint64_t>(end - start - 1) / static_cast<uint64_t>(step) + 1);
      } else {
        start = std::clamp<int64_t>(start, 0, dim - 1);
        end = std::clamp<int64_t>(end, -1, dim - 1);
        const uint64_t mag = uint64_t{0} - static_cast<uint64_t>(step);  // |step| without overflow
        if (start > end) count = static_cast<int64_t>(static_cast<uint64_t>(start - end - 1) / mag + 1);
      }
    }
    c.dims[axis] = count;
    if (count > 0) c.src_offset += start * x_strides[axis];
    // With one element the step is never taken (and a huge step must not overflow).
    c.src_strides[axis] = count > 1 ? x_strides[axis] * step : 0;
  }
  Shape y_shape(c.dims, c.dims + rank);
  contiguous_strides(y_shape, c.dst_strides);
  return c;
}

Result<StridedCopy> expand_copy(const Shape& x_shape, const Shape& y_shape) {
  HI_RETURN_IF(y_shape.size() > static_cast<size_t>(kMaxCopyRank), kUnsupported, "GPU Expand: rank ", y_shape.size(),
               " is above ", kMaxCopyRank);
  HI_RETURN_IF(x_shape.size() > y_shape.size(), kInvalidArgument, "Expand: ", shape_to_string(x_shape),
               " has more dims than ", shape_to_string(y_shape));
  StridedCopy c;
  c.rank = static_cast<int>(y_shape.size());
  int64_t x_strides[kMaxCopyRank];
  contiguous_strides(x_shape, x_strides);
  const size_t off = y_shape.size() - x_shape.size();
  for (size_t k = 0; k < y_shape.size(); ++k) {
    c.dims[k] = y_shape[k];
    if (k < off) continue;  // a new leading dim: stride 0
    const int64_t d = x_shape[k - off];
    HI_RETURN_IF(d != 1 && d != y_shape[k], kInvalidArgument, "Expand: cannot broadcast ", shape_to_string(x_shape),
                 " to ", shape_to_string(y_shape));
    c.src_strides[k] = d == 1 ? 0 : x_strides[k - off];
  }
  contiguous_strides(y_shape, c.dst_strides);
  return c;
}

Result<StridedCopy> tile_copy(const Shape& x_shape, const std::vector<int64_t>& repeats) {
  HI_RETURN_IF(repeats.size() != x_shape.size(), kInvalidArgument, "Tile: repeats ", shape_to_string(repeats), " for ",
               shape_to_string(x_shape));
  // Output dim d as [repeats[d], x dim d]: the first walks nothing (source stride 0). Dims where
  // either is 1 need no extra copy dim.
  StridedCopy c;
  int64_t x_strides[kMaxCopyRank];
  HI_RETURN_IF(x_shape.size() > static_cast<size_t>(kMaxCopyRank), kUnsupported, "GPU Tile: rank ", x_shape.size(),
               " is above ", kMaxCopyRank);
  contiguous_strides(x_shape, x_strides);
  std::vector<int64_t> dims, src;
  for (size_t d = 0; d < x_shape.size(); ++d) {
    HI_RETURN_IF(repeats[d] < 0, kInvalidArgument, "Tile: repeats ", shape_to_string(repeats), " has a negative entry");
    if (repeats[d] != 1) {
      dims.push_back(repeats[d]);
      src.push_back(0);
    }
    if (x_shape[d] != 1 || repeats[d] == 1) {
      dims.push_back(x_shape[d]);
      src.push_back(x_strides[d]);
    }
  }
  HI_RETURN_IF(dims.size() > static_cast<size_t>(kMaxCopyRank), kUnsupported, "GPU Tile: ", shape_to_string(x_shape),
               " repeated ", shape_to_string(repeats), " needs ", dims.size(), " copy dims (at most ", kMaxCopyRank,
               ")");
  c.rank = static_cast<int>(dims.size());
  for (size_t k = 0; k < dims.size(); ++k) {
    c.dims[k] = dims[k];
    c.src_strides[k] = src[k];
  }
  contiguous_strides(Shape(dims.begin(), dims.end()), c.dst_strides);
  return c;
}

Status strided_copy(const StridedCopy& c, int elem_size, const void* src, void* dst, Stream stream) {
  HI_RETURN_IF(c.rank < 0 || c.rank > kMaxCopyRank, kInvalidArgument, "GPU strided copy: rank ", c.rank, " outside 0..",
               kMaxCopyRank);
  for (int k = 0; k < c.rank; ++k)
    HI_RETURN_IF(c.dims[k] < 0, kInvalidArgument, "GPU strided copy: dim ", k, " is ", c.dims[k]);
  const int64_t n = c.numel();
  if (n == 0) return Status::ok();
  HI_RETURN_IF(src == nullptr || dst == nullptr, kInvalidArgument, "GPU strided copy: null buffer for ", n,
               " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  const bool ok = with_word(elem_size, [&](auto word) { launch<decltype(word)>(c, src, dst, n, s); });
  HI_RETURN_IF(!ok, kUnsupported, "GPU strided copy: element size ", elem_size, " (1, 2, 4 or 8 bytes)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
