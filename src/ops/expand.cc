// Expand: broadcasts a tensor to a shape given as an input, numpy style in both directions
// (the output shape is broadcast(input.shape, shape)). Any element type.
#include "ops/arity.h"
#include "ops/copy_util.h"

namespace hi::ops {
namespace {

class ExpandOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& s = ctx.input_type(1);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    HI_RETURN_IF_ERROR(check_int_list_type(s, "shape"));
    if (const Tensor* v = ctx.input_value(1)) {
      HI_ASSIGN_OR_RETURN(auto shape, int_list_checked(*v, "shape"));
      for (int64_t d : shape)
        if (d < 0) return error(StatusCode::kInvalidModel, "shape ", shape_to_string(shape), " has a negative dim");
      if (!x.has_rank()) {
        ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
        return Status::ok();
      }
      auto r = broadcast_dims(*x.shape, known_dims(shape));
      if (!r.is_ok())
        return error(StatusCode::kInvalidModel, "cannot expand ", x.to_string(), " to shape ", shape_to_string(shape),
                     ": ", r.status().message());
      HI_RETURN_IF_ERROR(check_output_dims(r.value(), "input 'shape' " + shape_to_string(shape)));
      ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(r).value()));
      return Status::ok();
    }
    // Shape known only at run time: its length gives the rank, and an input dim other than 1
    // survives (the shape's dim there must be 1 or equal to it).
    if (!x.has_rank() || !s.is_static() || s.rank() != 1 || s.concrete_shape()[0] > kMaxInferredRank) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    const int64_t k = s.concrete_shape()[0];
    const int64_t rank = std::max(k, x.rank());
    std::vector<ir::Dim> out(static_cast<size_t>(rank));
    for (int64_t i = 0; i < x.rank(); ++i) {
      const ir::Dim& d = (*x.shape)[static_cast<size_t>(i)];
      if (d.is_known() && d.value != 1) out[static_cast<size_t>(rank - x.rank() + i)] = d;
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(auto shape, int_list_checked(ctx.in(1), "shape"));
    for (int64_t d : shape)
      if (d < 0) return error(StatusCode::kInvalidArgument, "shape ", shape_to_string(shape), " has a negative dim");
    auto r = broadcast_shapes(x.shape(), shape);
    if (!r.is_ok())
      return error(StatusCode::kInvalidArgument, "cannot expand ", x.type_string(), " to shape ",
                   shape_to_string(shape), ": ", r.status().message());
    const Shape out_shape = std::move(r).value();
    HI_RETURN_IF_ERROR(
        check_output_shape(out_shape, "input 'shape' " + shape_to_string(shape), StatusCode::kInvalidArgument));
    // Input strides aligned to the output's dims; 0 where the input is broadcast.
    std::vector<int64_t> strides(out_shape.size(), 0);
    const auto in_strides = strides_of(x.shape());
    const size_t off = out_shape.size() - x.shape().size();
    for (size_t i = 0; i < x.shape().size(); ++i) strides[off + i] = x.shape()[i] == 1 ? 0 : in_strides[i];
    Tensor& out = ctx.output(0, x.dtype(), out_shape);
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* src = storage<U>(x);
          U* dst = storage<U>(out);
          for_each_strided(out_shape, strides, 0, [&](int64_t o, int64_t i) { dst[o] = src[i]; });
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(Expand, ExpandOp)

}  // namespace hi::ops
