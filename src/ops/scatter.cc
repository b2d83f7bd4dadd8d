// Scatter (opset 9-10, deprecated): ScatterElements without a reduction, under its old name.
// Opset 11 removed it; a model importing opset 11 or later must use ScatterElements.
#include "ops/scatter_util.h"

namespace hi::ops {
namespace {

class ScatterOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    if (ctx.opset() >= 11)
      return ctx.fail(StatusCode::kInvalidModel, "Scatter was removed in opset 11 (the model imports opset ",
                      ctx.opset(), "); use ScatterElements");
    axis_ = ctx.get_int("axis", 0);
    return ctx.status();
  }
  Status infer(InferContext& ctx) const override { return infer_scatter_elements(ctx, axis_, ScatterReduction::kNone); }
  Status run(RunContext& ctx) const override { return run_scatter_elements(ctx, axis_, ScatterReduction::kNone); }

 private:
  int64_t axis_ = 0;
};

}  // namespace

HI_REGISTER_OP(Scatter, ScatterOp)

}  // namespace hi::ops
