// Shape helpers shared by ops: broadcasting, axis normalisation, symbolic dims.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hipinfer/status.h"
#include "hipinfer/tensor.h"
#include "ir/graph.h"

namespace hi::ops {

// Numpy broadcasting of concrete shapes; error names both shapes.
Result<Shape> broadcast_shapes(const Shape& a, const Shape& b);
// The same over symbolic dims: unknown dims broadcast to unknown (or to the known dim != 1).
Result<std::vector<ir::Dim>> broadcast_dims(const std::vector<ir::Dim>& a, const std::vector<ir::Dim>& b);
// Output type of an elementwise op over the given inputs (all must share `dtype`).
Result<ir::ValueType> broadcast_types(const std::vector<const ir::ValueType*>& inputs, DType dtype);

// Maps a possibly negative axis into [0, rank); error when out of range.
Result<int64_t> normalize_axis(int64_t axis, int64_t rank);

// Row-major strides of a shape (in elements).
std::vector<int64_t> strides_of(const Shape& shape);

// Walks an output shape and yields, for each element, the offset into an input that is
// broadcast to it (stride 0 on broadcast dims). Used by the reference elementwise kernels.
class BroadcastIndex {
 public:
  BroadcastIndex(const Shape& out_shape, const Shape& in_shape);
  // Offset of output element `linear` in the input (linear must increase by one each call for
  // the fast path; random access also works).
  int64_t offset(int64_t linear) const;

 private:
  Shape out_shape_;
  std::vector<int64_t> in_strides_;  // aligned to out_shape_, 0 where broadcast
  bool same_ = false;
  bool scalar_ = false;
};

// a * b and a + b, or nullopt when the result does not fit in int64 (sizes taken from a model's
// attributes or inputs, where signed overflow would be undefined behaviour).
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// An output shape an op computed from its attribute or input `source` ("input 'shape'",
// "attribute 'output_shape'"): an error naming the source and the shape when a dim is negative
// or the element count overflows int64. A huge but countable shape is fine here: the memory
// limit refuses what cannot be allocated.
Status check_output_shape(const Shape& shape, const std::string& source, StatusCode code);
// The same for inferred dims, checked when every dim is known.
Status check_output_dims(const std::vector<ir::Dim>& dims, const std::string& source);

// A tensor of `rank` unknown dims: the output of an op whose rank the declared length of an input
// gives (Reshape's or Expand's shape, Unsqueeze's axes). A declared length is not backed by
// memory, so a rank that is negative or above kMaxInferredRank gives an unknown shape instead of
// a vector of 2^32 dims.
inline constexpr int64_t kMaxInferredRank = 256;
ir::ValueType tensor_of_rank(DType dtype, int64_t rank);

// Reads an int64 list from a constant 1-D tensor (shape, axes, pads inputs).
std::vector<int64_t> int_list(const Tensor& t);

// "float32[batch, 3]" style dims from a concrete shape.
std::vector<ir::Dim> known_dims(const Shape& shape);

// Shape's dims [start, end) (opset 15; end absent: the rank), clamped into [0, rank] as the spec
// says, and never reversed. The CPU op and the GPU kernel both read their range here.
std::pair<int64_t, int64_t> shape_op_range(int64_t rank, int64_t start, std::optional<int64_t> end);

}  // namespace hi::ops
