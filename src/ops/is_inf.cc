// IsInf: bool x is +inf (if detect_positive) or -inf (if detect_negative), over the float types.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

class IsInfOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    detect_negative_ = ctx.get_int("detect_negative", 1) != 0;
    detect_positive_ = ctx.get_int("detect_positive", 1) != 0;
    return ctx.status();
  }
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
          for (int64_t i = 0; i < n; ++i) {
            const auto v = static_cast<compute_t<T>>(px[i]);
            po[i] = std::isinf(v) && (v > 0 ? detect_positive_ : detect_negative_);
          }
        }))
      return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  bool detect_negative_ = true;
  bool detect_positive_ = true;
};

}  // namespace

HI_REGISTER_OP(IsInf, IsInfOp)

}  // namespace hi::ops
