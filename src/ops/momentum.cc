// Momentum (ai.onnx.preview.training): one SGD-with-momentum step for one or more variables.
//   G' = norm_coefficient * X + G;  b = T > 0 ? beta : 1;  V_new = alpha * V + b * G'
//   standard: X_new = X - R * V_new;  nesterov: X_new = X - R * (G' + alpha * V_new)
// alpha, beta, norm_coefficient and mode have no defaults in the spec: all are required.
#include "ops/optimizer_util.h"

namespace hi::ops {
namespace {

const OptimizerLayout kMomentumLayout{"Momentum", {"X", "G", "V"}, {0, 2}};

class MomentumOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    for (const char* name : {"alpha", "beta", "norm_coefficient", "mode"})
      if (!ctx.has(name))
        return ctx.fail(StatusCode::kInvalidModel, "Momentum (ai.onnx.preview.training opset ", opset_,
                        ") requires attribute '", name, "'");
    alpha_ = ctx.get_float("alpha", 0.f);
    beta_ = ctx.get_float("beta", 0.f);
    norm_coefficient_ = ctx.get_float("norm_coefficient", 0.f);
    const std::string mode = ctx.get_string("mode", "standard");
    if (mode != "standard" && mode != "nesterov")
      return ctx.fail(StatusCode::kUnsupported, "Momentum (ai.onnx.preview.training opset ", opset_,
                      ") attribute mode must be \"standard\" or \"nesterov\", got \"", mode, "\"");
    nesterov_ = mode == "nesterov";
    return Status::ok();
  }
  Status infer(InferContext& ctx) const override { return infer_optimizer(ctx, kMomentumLayout, opset_); }
  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(OptimizerScalars s, read_optimizer_scalars(ctx, kMomentumLayout));
    const double beta = s.t > 0 ? beta_ : 1.0;  // the first step takes the whole gradient
    return run_optimizer(ctx, kMomentumLayout, opset_, [&](const auto& in, auto& out) {
      const double x = in[0], g = in[1], v = in[2];
      const double g_reg = norm_coefficient_ * x + g;
      const double v_new = alpha_ * v + beta * g_reg;
      out[0] = nesterov_ ? x - s.r * (g_reg + alpha_ * v_new) : x - s.r * v_new;
      out[1] = v_new;
    });
  }

 private:
  int64_t opset_ = 1;
  double alpha_ = 0, beta_ = 0, norm_coefficient_ = 0;
  bool nesterov_ = false;
};

}  // namespace

HI_REGISTER_OP(Momentum, MomentumOp)

}  // namespace hi::ops
