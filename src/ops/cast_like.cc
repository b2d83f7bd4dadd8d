// CastLike: Cast to the element type of a second input (its values are not read), with Cast's
// 'saturate' and 'round_mode' attributes.
#include "ops/arity.h"
#include "ops/cast.h"
#include "ops/op.h"

namespace hi::ops {
namespace {

class CastLikeOp final : public Op {
 public:
  Status init(InitContext& ctx) override { return read_cast_options(ctx, &options_); }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    ir::ValueType t = ctx.input_type(0);
    const DType to = ctx.input_type(1).dtype;
    if (t.dtype != DType::kUndefined && !cast_supported(t.dtype))
      return error(StatusCode::kUnsupported, "CastLike from ", dtype_name(t.dtype), " is not supported");
    if (to != DType::kUndefined && !cast_supported(to))
      return error(StatusCode::kUnsupported, "CastLike to ", dtype_name(to), " is not supported");
    t.dtype = to;
    ctx.set_output_type(0, std::move(t));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const DType to = ctx.in(1).dtype();
    if (!cast_supported(x.dtype()) || !cast_supported(to))
      return error(StatusCode::kUnsupported, "CastLike from ", dtype_name(x.dtype()), " to ", dtype_name(to),
                   " is not supported");
    if (x.dtype() == to) {  // nothing to convert: share the input
      ctx.set_output(0, x);
      return Status::ok();
    }
    return cast_into(x, ctx.output(0, to, x.shape()), options_);
  }

 private:
  CastOptions options_;
};

}  // namespace

HI_REGISTER_OP(CastLike, CastLikeOp)

}  // namespace hi::ops
