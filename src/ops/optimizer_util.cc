// Checks and inference shared by the training optimizers (see optimizer_util.h).
#include "ops/optimizer_util.h"

namespace hi::ops {
namespace {

// "G_2" names the tensor of role r for variable v (1-based, as the ONNX docs count).
std::string role_name(const OptimizerLayout& layout, size_t r, size_t v) {
  return str(layout.input_roles[r], "_", v + 1);
}

Status unsupported_type(const OptimizerLayout& layout, int64_t opset, const std::string& what, DType dtype) {
  return error(StatusCode::kUnsupported, layout.op_name, " (ai.onnx.preview.training opset ", opset,
               ") does not support ", what, " type ", dtype_name(dtype), "; expected float32 or float64");
}

// Two static dims can only be proven different when both are known.
bool dims_conflict(const std::vector<ir::Dim>& a, const std::vector<ir::Dim>& b) {
  if (a.size() != b.size()) return true;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].is_known() && b[i].is_known() && a[i].value != b[i].value) return true;
  return false;
}

}  // namespace

Result<size_t> optimizer_variable_count(const OptimizerLayout& layout, const ir::Node& node, size_t num_inputs,
                                        size_t num_outputs) {
  const size_t in_roles = layout.input_roles.size(), out_roles = layout.output_sources.size();
  if (num_inputs < 2 + in_roles || (num_inputs - 2) % in_roles != 0)
    return error(StatusCode::kInvalidModel, node.op_type, " takes R, T and ", in_roles,
                 " tensors per optimized variable, so 2 + ", in_roles, "*n inputs (n >= 1); got ", num_inputs);
  const size_t n = (num_inputs - 2) / in_roles;
  if (num_outputs != out_roles * n)
    return error(StatusCode::kInvalidModel, node.op_type, " has ", n, " optimized variables (", num_inputs,
                 " inputs), so it needs ", out_roles * n, " outputs; got ", num_outputs);
  return n;
}

Status infer_optimizer(InferContext& ctx, const OptimizerLayout& layout, int64_t opset) {
  HI_ASSIGN_OR_RETURN(size_t n, optimizer_variable_count(layout, ctx.node(), ctx.num_inputs(), ctx.num_outputs()));
  HI_RETURN_IF_ERROR(check_arity(ctx, ctx.num_inputs(), ctx.num_inputs(), ctx.num_outputs()));
  const ir::ValueType& r = ctx.input_type(0);
  const ir::ValueType& t = ctx.input_type(1);
  if (r.dtype != DType::kUndefined && !in_set(kOptimizerTypes, r.dtype))
    return unsupported_type(layout, opset, "R", r.dtype);
  if (t.dtype != DType::kUndefined && t.dtype != DType::kInt64)
    return error(StatusCode::kInvalidModel, layout.op_name, " input T must be int64, got ", dtype_name(t.dtype));
  if (r.rank() > 0)
    return error(StatusCode::kInvalidModel, layout.op_name, " input R must be a scalar, got ", r.to_string());
  if (t.rank() > 0)
    return error(StatusCode::kInvalidModel, layout.op_name, " input T must be a scalar, got ", t.to_string());
  for (size_t v = 0; v < n; ++v) {
    const ir::ValueType& x = ctx.input_type(2 + v);
    if (x.dtype != DType::kUndefined && !in_set(kOptimizerTypes, x.dtype))
      return unsupported_type(layout, opset, role_name(layout, 0, v), x.dtype);
    for (size_t role = 1; role < layout.input_roles.size(); ++role) {
      const ir::ValueType& other = ctx.input_type(2 + role * n + v);
      if (x.dtype != DType::kUndefined && other.dtype != DType::kUndefined && other.dtype != x.dtype)
        return error(StatusCode::kInvalidModel, layout.op_name, " input ", role_name(layout, role, v), " must have ",
                     role_name(layout, 0, v), "'s type ", dtype_name(x.dtype), ", got ", dtype_name(other.dtype));
      if (x.has_rank() && other.has_rank() && dims_conflict(*x.shape, *other.shape))
        return error(StatusCode::kInvalidModel, layout.op_name, " input ", role_name(layout, role, v), " must have ",
                     role_name(layout, 0, v), "'s shape ", x.to_string(), ", got ", other.to_string());
    }
    for (size_t j = 0; j < layout.output_sources.size(); ++j)
      ctx.set_output_type(j * n + v, ctx.input_type(2 + layout.output_sources[j] * n + v));
  }
  return Status::ok();
}

Result<OptimizerScalars> read_optimizer_scalars(RunContext& ctx, const OptimizerLayout& layout) {
  const Tensor& r = ctx.in(0);
  const Tensor& t = ctx.in(1);
  if (!in_set(kOptimizerTypes, r.dtype()) || r.numel() != 1)
    return error(StatusCode::kInvalidArgument, layout.op_name, " input R must be a float32 or float64 scalar, got ",
                 r.type_string());
  if (t.dtype() != DType::kInt64 || t.numel() != 1)
    return error(StatusCode::kInvalidArgument, layout.op_name, " input T must be an int64 scalar, got ",
                 t.type_string());
  return OptimizerScalars{r.as_double(0), t.data<int64_t>()[0]};
}

Status check_optimizer_variable(RunContext& ctx, const OptimizerLayout& layout, size_t n, size_t v, int64_t opset) {
  const Tensor& x = ctx.in(2 + v);
  if (!in_set(kOptimizerTypes, x.dtype())) return unsupported_type(layout, opset, role_name(layout, 0, v), x.dtype());
  for (size_t role = 1; role < layout.input_roles.size(); ++role) {
    const Tensor& other = ctx.in(2 + role * n + v);
    if (other.dtype() != x.dtype() || other.shape() != x.shape())
      return error(StatusCode::kInvalidArgument, layout.op_name, " input ", role_name(layout, role, v), " must match ",
                   role_name(layout, 0, v), " ", x.type_string(), ", got ", other.type_string());
  }
  return Status::ok();
}

}  // namespace hi::ops
