// Helpers for the indexing ops (GatherElements, GatherND, ScatterElements, Scatter, ScatterND,
// TensorScatter, MaxUnpool): checks on index inputs whose errors name the index and its bound,
// a row-major walk over multi-indices, and the scatter reductions.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "ops/arity.h"
#include "ops/copy_util.h"
#include "ops/numeric.h"

namespace hi::ops {

// Inference: an index input must be int32 or int64 (kUndefined passes: not known yet).
inline Status check_index_type(const ir::ValueType& t, const char* what) {
  if (t.dtype != DType::kUndefined && t.dtype != DType::kInt32 && t.dtype != DType::kInt64)
    return error(StatusCode::kInvalidModel, what, " must be int32 or int64, got ", t.to_string());
  return Status::ok();
}
// Run time: the same for a tensor.
inline Status check_index_tensor(const Tensor& t, const char* what) {
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64)
    return error(StatusCode::kInvalidArgument, what, " must be int32 or int64, got ", t.type_string());
  return Status::ok();
}

// Element k of `indices` as an index into a dim of size `dim` (negative counts from the end).
// The error names the value, its position in `indices` and the accepted range.
inline Result<int64_t> resolve_index(const Tensor& indices, int64_t k, int64_t dim, const char* what, int64_t axis) {
  const int64_t i = indices.as_int64(k);
  if (i < -dim || i >= dim)
    return error(StatusCode::kInvalidArgument, what, " value ", i, " (element ", k, " of ", indices.type_string(),
                 ") is out of range for axis ", axis, " of size ", dim, ": expected [", -dim, ", ", dim - 1, "]");
  return i < 0 ? i + dim : i;
}

// Calls fn(linear, idx) for every multi-index of `shape` in row-major order.
template <typename Fn>
void for_each_index(const Shape& shape, Fn&& fn) {
  const int64_t n = shape_numel(shape);
  if (n <= 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t lin = 0; lin < n; ++lin) {
    fn(lin, static_cast<const std::vector<int64_t>&>(idx));
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

// Dims of a static or symbolic shape are equal when both are known and equal; an unknown dim
// matches anything (it is checked again at run time).
inline bool dims_may_match(const ir::Dim& a, const ir::Dim& b) {
  return !a.is_known() || !b.is_known() || a.value == b.value;
}

// The reduction of ScatterElements and ScatterND.
enum class ScatterReduction { kNone, kAdd, kMul, kMax, kMin };

// Parses 'reduction': add and mul from opset 16, max and min from opset 18.
inline ScatterReduction parse_scatter_reduction(InitContext& ctx) {
  const std::string r = ctx.get_string("reduction", "none");
  const int64_t opset = ctx.opset();
  if (r == "none") return ScatterReduction::kNone;
  if ((r == "add" || r == "mul") && opset >= 16) return r == "add" ? ScatterReduction::kAdd : ScatterReduction::kMul;
  if ((r == "max" || r == "min") && opset >= 18) return r == "max" ? ScatterReduction::kMax : ScatterReduction::kMin;
  if (r == "add" || r == "mul" || r == "max" || r == "min")
    (void)ctx.fail(StatusCode::kInvalidModel, "reduction '", r, "' needs opset ", (r == "add" || r == "mul") ? 16 : 18,
                   ", the model imports opset ", opset);
  else (void)ctx.fail(StatusCode::kInvalidModel, "reduction '", r, "' is not one of none, add, mul, max, min");
  return ScatterReduction::kNone;
}

// Element types a scatter supports: any movable type without a reduction, numbers with one.
inline Status check_scatter_dtype(const ir::Node& node, DType t, ScatterReduction r) {
  if (t == DType::kUndefined) return Status::ok();
  if (r == ScatterReduction::kNone) return check_movable(node, t, "data");
  if (!in_set(kNumericTypes, t))
    return error(StatusCode::kUnsupported, node.op_type, " with a reduction does not support data type ",
                 dtype_name(t));
  return Status::ok();
}

// `into` combined with `v` by the reduction (numbers; NaN propagates through max and min, like
// numpy's maximum/minimum; integers wrap on overflow).
template <typename T>
T scatter_combine(ScatterReduction r, T into, T v) {
  using C = compute_t<T>;
  const C a = static_cast<C>(into), b = static_cast<C>(v);
  switch (r) {
    case ScatterReduction::kNone: return v;
    case ScatterReduction::kAdd: return static_cast<T>(wrap_add(a, b));
    case ScatterReduction::kMul: return static_cast<T>(wrap_mul(a, b));
    case ScatterReduction::kMax:
      return is_nan(a) || is_nan(b) ? static_cast<T>(is_nan(a) ? a : b) : static_cast<T>(a < b ? b : a);
    case ScatterReduction::kMin:
      return is_nan(a) || is_nan(b) ? static_cast<T>(is_nan(a) ? a : b) : static_cast<T>(b < a ? b : a);
  }
  return v;
}

}  // namespace hi::ops
