// Div: elementwise a / b with numpy broadcasting. Integer division truncates toward zero, and
// an integer division by zero is an error rather than undefined behaviour.
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

class DivOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    legacy_.parse(ctx);
    return Status::ok();
  }
  Status infer(InferContext& ctx) const override { return infer_broadcast(ctx, kNumericTypes, DType::kUndefined, &legacy_); }
  Status run(RunContext& ctx) const override {
    const Tensor& b = ctx.in(1);
    if (dtype_is_integer(b.dtype()))
      for (int64_t i = 0; i < b.numel(); ++i)
        if (b.as_int64(i) == 0) return error(StatusCode::kInvalidArgument, "integer division by zero (divisor element ", i, ")");
    return run_binary<kNumericTypes>(ctx, [](auto a, auto d) { return static_cast<decltype(a)>(a / d); }, legacy_);
  }

 private:
  LegacyBroadcast legacy_;
};

}  // namespace

HI_REGISTER_OP(Div, DivOp)

}  // namespace hi::ops
