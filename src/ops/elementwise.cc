// Shared inference for elementwise ops.
#include "ops/elementwise.h"

namespace hi::ops {

Status unsupported_dtype(const ir::Node& node, DType dtype, const char* what) {
  return error(StatusCode::kUnsupported, node.op_type, " does not support ", what, " type ", dtype_name(dtype));
}

Status infer_same_as_input(InferContext& ctx, uint64_t types) {
  const ir::ValueType& x = ctx.input_type(0);
  if (x.dtype != DType::kUndefined && !in_set(types, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
  ctx.set_output_type(0, x);
  return Status::ok();
}

Status infer_broadcast(InferContext& ctx, uint64_t types, DType out_dtype, const LegacyBroadcast* legacy) {
  std::vector<const ir::ValueType*> ins;
  ir::ValueType aligned_b;
  DType dtype = DType::kUndefined;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    const ir::ValueType& t = ctx.input_type(i);
    if (t.dtype != DType::kUndefined) {
      if (!in_set(types, t.dtype)) return unsupported_dtype(ctx.node(), t.dtype);
      if (dtype != DType::kUndefined && t.dtype != dtype)
        return error(StatusCode::kInvalidModel, "inputs have different types: ", dtype_name(dtype), " and ",
                     dtype_name(t.dtype), " (input ", i, ")");
      dtype = t.dtype;
    }
    if (legacy && i == 1 && ctx.has_input(0)) {
      aligned_b = legacy->align(ctx.input_type(0), t);
      ins.push_back(&aligned_b);
    } else {
      ins.push_back(&t);
    }
  }
  HI_ASSIGN_OR_RETURN(auto out, broadcast_types(ins, out_dtype == DType::kUndefined ? dtype : out_dtype));
  ctx.set_output_type(0, std::move(out));
  return Status::ok();
}

}  // namespace hi::ops
