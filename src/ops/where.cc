// Where: out = condition ? X : Y elementwise, with numpy broadcasting of all three; X and Y
// share a type (any element type).
#include "ops/arity.h"
#include "ops/copy_util.h"

namespace hi::ops {
namespace {

class WhereOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 3));
    const ir::ValueType& c = ctx.input_type(0);
    const ir::ValueType& x = ctx.input_type(1);
    const ir::ValueType& y = ctx.input_type(2);
    if (c.dtype != DType::kUndefined && c.dtype != DType::kBool)
      return error(StatusCode::kInvalidModel, "condition must be bool, got ", c.to_string());
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype, "X"));
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), y.dtype, "Y"));
    if (x.dtype != DType::kUndefined && y.dtype != DType::kUndefined && x.dtype != y.dtype)
      return error(StatusCode::kInvalidModel, "X is ", x.to_string(), " but Y is ", y.to_string(), "; they must match");
    const DType dtype = x.dtype != DType::kUndefined ? x.dtype : y.dtype;
    HI_ASSIGN_OR_RETURN(auto out, broadcast_types({&c, &x, &y}, dtype));
    ctx.set_output_type(0, std::move(out));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& c = ctx.in(0);
    const Tensor& x = ctx.in(1);
    const Tensor& y = ctx.in(2);
    if (c.dtype() != DType::kBool)
      return error(StatusCode::kInvalidArgument, "condition must be bool, got ", c.type_string());
    if (x.dtype() != y.dtype())
      return error(StatusCode::kInvalidArgument, "X is ", x.type_string(), " but Y is ", y.type_string(),
                   "; they must match");
    HI_ASSIGN_OR_RETURN(Shape cx, broadcast_shapes(c.shape(), x.shape()));
    HI_ASSIGN_OR_RETURN(Shape shape, broadcast_shapes(cx, y.shape()));
    Tensor& out = ctx.output(0, x.dtype(), shape);
    const BroadcastIndex ic(shape, c.shape()), ix(shape, x.shape()), iy(shape, y.shape());
    const bool* pc = c.data<bool>();
    const int64_t n = out.numel();
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* px = storage<U>(x);
          const U* py = storage<U>(y);
          U* po = storage<U>(out);
          for (int64_t i = 0; i < n; ++i) po[i] = pc[ic.offset(i)] ? px[ix.offset(i)] : py[iy.offset(i)];
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(Where, WhereOp)

}  // namespace hi::ops
