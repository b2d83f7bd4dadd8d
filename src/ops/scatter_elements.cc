// ScatterElements: a copy of data with updates written at the positions indices name along
// `axis` (the inverse of GatherElements), optionally combined with what is there (reduction add,
// mul from opset 16; max, min from opset 18). The kernel is shared with Scatter (scatter_util.h).
#include "ops/scatter_util.h"

namespace hi::ops {
namespace {

class ScatterElementsOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_ = ctx.get_int("axis", 0);
    reduction_ = parse_scatter_reduction(ctx);
    return ctx.status();
  }
  Status infer(InferContext& ctx) const override { return infer_scatter_elements(ctx, axis_, reduction_); }
  Status run(RunContext& ctx) const override { return run_scatter_elements(ctx, axis_, reduction_); }

 private:
  int64_t axis_ = 0;
  ScatterReduction reduction_ = ScatterReduction::kNone;
};

}  // namespace

HI_REGISTER_OP(ScatterElements, ScatterElementsOp)

}  // namespace hi::ops
