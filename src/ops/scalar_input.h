// Inputs that carry one number (Trilu's k, CumSum's axis, TopK's k, OneHot's depth, the window
// ops' size): checks that they hold exactly one element of an allowed type, at inference (from
// the static type) and at run time (from the value).
#pragma once

#include <cmath>

#include "ops/dispatch.h"
#include "ops/op.h"

namespace hi::ops {

// Inference: `t` may be a scalar or a 1-element 1-D tensor (the spec says 0-D for most of these,
// but exporters often write [1]); its dtype must be in `types` when known.
inline Status check_scalar_type(const ir::Node& node, const ir::ValueType& t, uint64_t types, const char* what) {
  if (t.dtype != DType::kUndefined && !in_set(types, t.dtype))
    return error(StatusCode::kInvalidModel, node.op_type, " input '", what, "' has type ", dtype_name(t.dtype),
                 ", which it does not accept");
  if (t.has_rank()) {
    if (t.rank() > 1)
      return error(StatusCode::kInvalidModel, node.op_type, " input '", what, "' must be a scalar, got ",
                   t.to_string());
    if (t.rank() == 1 && (*t.shape)[0].is_known() && (*t.shape)[0].value != 1)
      return error(StatusCode::kInvalidModel, node.op_type, " input '", what, "' must hold one value, got ",
                   t.to_string());
  }
  return Status::ok();
}

// Run time: the single value of an integer tensor.
inline Result<int64_t> scalar_int(const Tensor& t, const char* what) {
  if (!dtype_is_integer(t.dtype()))
    return error(StatusCode::kInvalidArgument, "'", what, "' must be an integer tensor, got ", t.type_string());
  if (t.numel() != 1 || t.rank() > 1)
    return error(StatusCode::kInvalidArgument, "'", what, "' must hold exactly one value, got ", t.type_string());
  return t.as_int64(0);
}

// Run time: the single value of a numeric tensor as double (NaN is an error).
inline Result<double> scalar_double(const Tensor& t, const char* what) {
  if (!dtype_is_integer(t.dtype()) && !dtype_is_float(t.dtype()))
    return error(StatusCode::kInvalidArgument, "'", what, "' must be a numeric tensor, got ", t.type_string());
  if (t.numel() != 1 || t.rank() > 1)
    return error(StatusCode::kInvalidArgument, "'", what, "' must hold exactly one value, got ", t.type_string());
  const double v = t.as_double(0);
  if (std::isnan(v)) return error(StatusCode::kInvalidArgument, "'", what, "' is NaN");
  return v;
}

}  // namespace hi::ops
