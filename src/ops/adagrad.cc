// Adagrad (ai.onnx.preview.training): one ADAGRAD step for one or more variables.
//   r = R / (1 + T * decay_factor);  G' = norm_coefficient * X + G;  H_new = H + G'^2
//   X_new = X - r * G' / (sqrt(H_new) + epsilon)
#include "ops/optimizer_util.h"

namespace hi::ops {
namespace {

const OptimizerLayout kAdagradLayout{"Adagrad", {"X", "G", "H"}, {0, 2}};

class AdagradOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    norm_coefficient_ = ctx.get_float("norm_coefficient", 0.f);
    decay_factor_ = ctx.get_float("decay_factor", 0.f);
    epsilon_ = ctx.get_float("epsilon", 1e-6f);
    return Status::ok();
  }
  Status infer(InferContext& ctx) const override { return infer_optimizer(ctx, kAdagradLayout, opset_); }
  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(OptimizerScalars s, read_optimizer_scalars(ctx, kAdagradLayout));
    const double r = s.r / (1.0 + static_cast<double>(s.t) * decay_factor_);
    return run_optimizer(ctx, kAdagradLayout, opset_, [&](const auto& in, auto& out) {
      const double x = in[0], g = in[1], h = in[2];
      const double g_reg = norm_coefficient_ * x + g;
      const double h_new = h + g_reg * g_reg;
      out[0] = x - r * g_reg / (std::sqrt(h_new) + epsilon_);
      out[1] = h_new;
    });
  }

 private:
  int64_t opset_ = 1;
  double norm_coefficient_ = 0, decay_factor_ = 0, epsilon_ = 1e-6;
};

}  // namespace

HI_REGISTER_OP(Adagrad, AdagradOp)

}  // namespace hi::ops
