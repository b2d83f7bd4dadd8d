// Axis handling shared by Softmax, LogSoftmax and Hardmax.
#include "ops/softmax_util.h"

namespace hi::ops {

void SoftmaxAxis::parse(InitContext& ctx) {
  coerce_2d = ctx.opset() < 13;
  axis = ctx.get_int("axis", coerce_2d ? 1 : -1);
}

Status SoftmaxAxis::infer(InferContext& ctx) const {
  HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
  const ir::ValueType& x = ctx.input_type(0);
  if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
  if (x.has_rank() && (x.rank() == 0 || axis < -x.rank() || axis >= x.rank()))
    return error(StatusCode::kInvalidModel, "axis ", axis, " is out of range for input ", x.to_string(),
                 " (accepted: [", -x.rank(), ", ", x.rank() - 1, "])");
  ctx.set_output_type(0, x);
  return Status::ok();
}

Status SoftmaxAxis::layout(const Shape& shape, int64_t* outer, int64_t* n, int64_t* inner) const {
  const int64_t r = static_cast<int64_t>(shape.size());
  if (r == 0 || axis < -r || axis >= r)
    return error(StatusCode::kInvalidArgument, "axis ", axis, " is out of range for input shape ",
                 shape_to_string(shape), " (accepted: [", -r, ", ", r - 1, "])");
  const size_t a = static_cast<size_t>(axis < 0 ? axis + r : axis);
  *outer = *n = *inner = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i < a) *outer *= shape[i];
    else if (i == a || coerce_2d) *n *= shape[i];
    else *inner *= shape[i];
  }
  return Status::ok();
}

}  // namespace hi::ops
