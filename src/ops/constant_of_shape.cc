// ConstantOfShape: a tensor of the shape given by an int64 input, filled with the one-element
// 'value' attribute (default float32 0).
#include "ops/arity.h"
#include "ops/copy_util.h"

namespace hi::ops {
namespace {

class ConstantOfShapeOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    if (const Tensor* v = ctx.get_tensor("value")) {
      if (v->numel() != 1)
        return ctx.fail(StatusCode::kInvalidModel, "'value' must hold exactly one element, got ", v->type_string());
      if (!is_movable_dtype(v->dtype()))
        return ctx.fail(StatusCode::kUnsupported, "'value' of type ", dtype_name(v->dtype()), " is not supported");
      value_ = *v;
    } else {
      value_ = Tensor::scalar<float>(0.f);
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1));
    const ir::ValueType& s = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_int_list_type(s, "shape"));
    if (const Tensor* v = ctx.input_value(0)) {
      HI_ASSIGN_OR_RETURN(Shape shape, checked_shape(*v, StatusCode::kInvalidModel));
      ctx.set_output_type(0, ir::ValueType::concrete(value_.dtype(), shape));
    } else if (s.is_static() && s.rank() == 1) {
      ctx.set_output_type(0, tensor_of_rank(value_.dtype(), s.concrete_shape()[0]));
    } else {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(value_.dtype()));
    }
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(Shape shape, checked_shape(ctx.in(0), StatusCode::kInvalidArgument));
    Tensor& out = ctx.output(0, value_.dtype(), shape);
    const int64_t n = out.numel();
    if (!dispatch_storage(value_.dtype(), [&]<typename U>() {
          const U v = storage<U>(value_)[0];
          U* dst = storage<U>(out);
          for (int64_t i = 0; i < n; ++i) dst[i] = v;
        }))
      return check_movable(ctx.node(), value_.dtype(), "value");
    return Status::ok();
  }

 private:
  static Result<Shape> checked_shape(const Tensor& t, StatusCode code) {
    if (t.rank() > 1) return error(code, "shape must be 1-D, got ", t.type_string());
    HI_ASSIGN_OR_RETURN(Shape shape, int_list_checked(t, "shape"));
    HI_RETURN_IF_ERROR(check_output_shape(shape, "input 'shape'", code));
    return shape;
  }

  Tensor value_;
};

}  // namespace

HI_REGISTER_OP(ConstantOfShape, ConstantOfShapeOp)

}  // namespace hi::ops
