// Data movement kernels (kernels/strided_copy.cu, kernels/gather.cu). They move elements of any
// dtype by size (1, 2, 4 or 8 bytes), so every dtype the ops allow is covered at once.
//
// One strided copy serves Transpose (permuted source strides), Slice (offset and any steps,
// negative ones included), Expand (stride 0 along broadcast dims), Tile (stride 0 along each
// repeat), and Concat and Split (each input written at, or each output read from, its offset
// along the axis).
#pragma once

#include <cstdint>
#include <vector>

#include "backends/gpu/device_api.h"
#include "hipinfer/tensor.h"

namespace hi::gpu::HI_GPU_NS {

constexpr int kMaxCopyRank = 8;

struct StridedCopy {
  int rank = 0;
  int64_t dims[kMaxCopyRank] = {};         // the copied block's dims
  int64_t src_strides[kMaxCopyRank] = {};  // in elements; may be 0 or negative
  int64_t dst_strides[kMaxCopyRank] = {};
  int64_t src_offset = 0;  // element offset of the block's first element
  int64_t dst_offset = 0;
  int64_t numel() const;
};

// Row-major strides of a shape, in elements.
void contiguous_strides(const Shape& shape, int64_t* strides);

// The copy for Transpose: y = transpose(x, perm), y contiguous. Errors name the shape and perm.
Result<StridedCopy> transpose_copy(const Shape& x_shape, const std::vector<int64_t>& perm);

// The copy for Slice (opset 10+ semantics: starts and ends clamped per ONNX, negative values
// counting from the end, steps non-zero and possibly negative; `axes` empty = 0..n-1). The
// result copies into a contiguous output.
Result<StridedCopy> slice_copy(const Shape& x_shape, const std::vector<int64_t>& starts,
                               const std::vector<int64_t>& ends, const std::vector<int64_t>& axes,
                               const std::vector<int64_t>& steps);

// The copy for Expand: x broadcast to y_shape (numpy rules: new leading dims, dims of 1
// repeated; stride 0 along both), y contiguous.
Result<StridedCopy> expand_copy(const Shape& x_shape, const Shape& y_shape);

// The copy for Tile: output dim d is x dim d repeated repeats[d] times, viewed as [repeats[d],
// x dim d] with source stride 0 along the first (dims where either is 1 add no copy dim); y
// contiguous. kUnsupported when that view needs more than kMaxCopyRank dims.
Result<StridedCopy> tile_copy(const Shape& x_shape, const std::vector<int64_t>& repeats);

// dst[dst_offset + sum(c_d * dst_strides_d)] = src[src_offset + sum(c_d * src_strides_d)] for every
// coordinate c of `dims`. elem_size 1, 2, 4 or 8.
Status strided_copy(const StridedCopy& copy, int elem_size, const void* src, void* dst, Stream stream);

// Gather along one axis of data viewed as [outer, axis_dim, inner]: y[o, i, r] =
// data[o, idx(i), r] for i < n_indices, idx negative counting from the end. An index outside
// [-axis_dim, axis_dim) writes zeros and sets *bad_index (device memory, may be null) to 1, so
// the caller can report it after synchronising.
Status gather(int elem_size, const void* data, const int64_t* indices, void* y, int64_t outer, int64_t axis_dim,
              int64_t inner, int64_t n_indices, int* bad_index, Stream stream);

// GatherElements / ScatterElements (kernels/scatter_gather.cu): the indices tensor (rank <=
// kMaxCopyRank, `dims`) addresses data (strides `data_strides`) at the same coordinates except
// along `axis`, where its value is the coordinate (negative counting from axis_dim's end).
struct ElementsIndex {
  int rank = 0, axis = 0;
  int64_t axis_dim = 0;
  int64_t dims[kMaxCopyRank] = {};
  int64_t data_strides[kMaxCopyRank] = {};
};
// y (the indices' shape) = data at each index's position; an index out of range gives zero.
Status gather_elements(int elem_size, const void* data, const int64_t* indices, void* y, const ElementsIndex& index,
                       int64_t n, Stream stream);
// y (already a copy of data) at each index's position = the update of the same coordinates; an
// index out of range writes nothing. Duplicate indices: one of the updates wins (the spec leaves
// it undefined; the CPU op takes the last).
Status scatter_elements(int elem_size, const int64_t* indices, const void* updates, void* y, const ElementsIndex& index,
                        int64_t n, Stream stream);

// ScatterND without reduction: indices [..., k] address slices of `slice` elements in data (dims
// and strides of its first k dims); y, already a copy of data, receives each update slice.
struct ScatterNdIndex {
  int k = 0;
  int64_t slice = 1;
  int64_t data_dims[kMaxCopyRank] = {};
  int64_t data_strides[kMaxCopyRank] = {};
};
Status scatter_nd(int elem_size, const int64_t* indices, const void* updates, void* y, const ScatterNdIndex& index,
                  int64_t n, Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
