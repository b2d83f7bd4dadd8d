// IsNaN: bool x != x elementwise over the float types.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

class IsNaNOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1));
    HI_RETURN_IF_ERROR(infer_same_as_input(ctx, kFloatTypes));
    ir::ValueType t = ctx.input_type(0);
    t.dtype = DType::kBool;
    ctx.set_output_type(0, std::move(t));
    return Status::ok();
  }
  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    Tensor& out = ctx.output(0, DType::kBool, x.shape());
    bool* po = out.data<bool>();
    const int64_t n = x.numel();
    if (!dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
          const T* px = x.data<T>();
          for (int64_t i = 0; i < n; ++i) po[i] = std::isnan(static_cast<compute_t<T>>(px[i]));
        }))
      return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(IsNaN, IsNaNOp)

}  // namespace hi::ops
