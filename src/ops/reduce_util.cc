// Axes, shapes and inference shared by the Reduce* ops.
#include "ops/reduce_util.h"

namespace hi::ops {

Status ReduceAttrs::parse(InitContext& ctx, int64_t axes_input_since) {
  keepdims = ctx.get_int("keepdims", 1) != 0;
  noop_with_empty_axes = ctx.get_int("noop_with_empty_axes", 0) != 0;
  axes_is_input = ctx.opset() >= axes_input_since;
  if (ctx.has("axes")) {
    if (axes_is_input)
      return ctx.fail(StatusCode::kInvalidModel, "axes is an input from opset ", axes_input_since,
                      ", not an attribute (the model imports opset ", ctx.opset(), ")");
    axes_attr = ctx.get_ints("axes");
  }
  return ctx.status();
}

Result<std::vector<bool>> reduce_mask(const std::optional<std::vector<int64_t>>& axes, bool noop_with_empty_axes,
                                      int64_t rank, StatusCode code) {
  std::vector<bool> mask(static_cast<size_t>(rank), false);
  if (!axes || axes->empty()) {
    if (!noop_with_empty_axes) mask.assign(static_cast<size_t>(rank), true);
    return mask;
  }
  for (int64_t a : *axes) {
    if (a < -rank || a >= rank)
      return error(code, "axis ", a, " in axes ", shape_to_string(*axes), " is out of range for rank ", rank,
                   " (accepted: [", -rank, ", ", rank - 1, "])");
    const size_t i = static_cast<size_t>(a < 0 ? a + rank : a);
    if (mask[i]) return error(code, "axes ", shape_to_string(*axes), " name dim ", i, " twice");
    mask[i] = true;
  }
  return mask;
}

Shape reduced_shape(const Shape& in, const std::vector<bool>& mask, bool keepdims) {
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!mask[i]) out.push_back(in[i]);
    else if (keepdims) out.push_back(1);
  }
  return out;
}

namespace {
Status check_axes_type(const ir::ValueType& t) {
  if (t.dtype != DType::kUndefined && t.dtype != DType::kInt64 && t.dtype != DType::kInt32)
    return error(StatusCode::kInvalidModel, "axes must be int64, got ", t.to_string());
  if (t.has_rank() && t.rank() > 1) return error(StatusCode::kInvalidModel, "axes must be 1-D, got ", t.to_string());
  return Status::ok();
}
}  // namespace

Status infer_reduce(InferContext& ctx, const ReduceAttrs& a, uint64_t types) {
  HI_RETURN_IF_ERROR(check_arity(ctx, 1, a.axes_is_input ? 2 : 1, 1));
  const ir::ValueType& x = ctx.input_type(0);
  if (x.dtype != DType::kUndefined && !in_set(types, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
  std::optional<std::vector<int64_t>> axes = a.axes_attr;
  bool axes_known = true;
  if (a.axes_is_input && ctx.has_input(1)) {
    const ir::ValueType& at = ctx.input_type(1);
    HI_RETURN_IF_ERROR(check_axes_type(at));
    if (const Tensor* v = ctx.input_value(1)) axes = int_list(*v);
    else if (at.is_static() && shape_numel(at.concrete_shape()) == 0) axes = std::vector<int64_t>{};
    else axes_known = false;
  }
  if (!x.has_rank()) {
    ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
    return Status::ok();
  }
  const auto& dims = *x.shape;
  if (!axes_known) {
    // Axes known only at run time: with keepdims the rank stays, and dims of size 1 stay 1.
    if (!a.keepdims && x.rank() > 0) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    std::vector<ir::Dim> out;
    for (const ir::Dim& d : dims) out.push_back(d.is_known() && d.value == 1 ? d : ir::Dim{});
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
    return Status::ok();
  }
  HI_ASSIGN_OR_RETURN(std::vector<bool> mask,
                      reduce_mask(axes, a.noop_with_empty_axes, x.rank(), StatusCode::kInvalidModel));
  std::vector<ir::Dim> out;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!mask[i]) out.push_back(dims[i]);
    else if (a.keepdims) out.push_back(ir::Dim::known(1));
  }
  ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
  return Status::ok();
}

Result<std::vector<bool>> run_reduce_mask(const RunContext& ctx, const ReduceAttrs& a, int64_t rank) {
  std::optional<std::vector<int64_t>> axes = a.axes_attr;
  if (a.axes_is_input) {
    if (const Tensor* t = ctx.input(1)) {
      if ((t->dtype() != DType::kInt64 && t->dtype() != DType::kInt32) || t->rank() > 1)
        return error(StatusCode::kInvalidArgument, "axes must be a 1-D int64 tensor, got ", t->type_string());
      axes = int_list(*t);
    }
  }
  return reduce_mask(axes, a.noop_with_empty_axes, rank, StatusCode::kInvalidArgument);
}

bool as_one_block(const Shape& shape, const std::vector<bool>& mask, ReduceBlock* block) {
  *block = ReduceBlock{};
  int stage = 0;  // 0: kept dims before the block, 1: in the block, 2: kept dims after it
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (mask[d]) {
      if (stage == 2) return false;
      stage = 1;
      block->reduced *= shape[d];
    } else {
      if (stage == 1) stage = 2;
      (stage == 0 ? block->outer : block->inner) *= shape[d];
    }
  }
  return true;
}

}  // namespace hi::ops
