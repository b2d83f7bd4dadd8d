// Adam (ai.onnx.preview.training): one Adam step for one or more variables.
//   G' = norm_coefficient * X + G;  V_new = alpha * V + (1 - alpha) * G'
//   H_new = beta * H + (1 - beta) * G'^2
//   R' = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R   (bias correction)
//   X_new = (1 - norm_coefficient_post) * (X - R' * V_new / (sqrt(H_new) + epsilon))
#include "ops/optimizer_util.h"

namespace hi::ops {
namespace {

const OptimizerLayout kAdamLayout{"Adam", {"X", "G", "V", "H"}, {0, 2, 3}};

class AdamOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    alpha_ = ctx.get_float("alpha", 0.9f);
    beta_ = ctx.get_float("beta", 0.999f);
    epsilon_ = ctx.get_float("epsilon", 1e-6f);
    norm_coefficient_ = ctx.get_float("norm_coefficient", 0.f);
    norm_coefficient_post_ = ctx.get_float("norm_coefficient_post", 0.f);
    return Status::ok();
  }
  Status infer(InferContext& ctx) const override { return infer_optimizer(ctx, kAdamLayout, opset_); }
  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(OptimizerScalars s, read_optimizer_scalars(ctx, kAdamLayout));
    double r = s.r;
    if (s.t > 0) {
      const double t = static_cast<double>(s.t);
      r = s.r * std::sqrt(1.0 - std::pow(beta_, t)) / (1.0 - std::pow(alpha_, t));
    }
    return run_optimizer(ctx, kAdamLayout, opset_, [&](const auto& in, auto& out) {
      const double x = in[0], g = in[1], v = in[2], h = in[3];
      const double g_reg = norm_coefficient_ * x + g;
      const double v_new = alpha_ * v + (1.0 - alpha_) * g_reg;
      const double h_new = beta_ * h + (1.0 - beta_) * g_reg * g_reg;
      const double x_new = x - r * v_new / (std::sqrt(h_new) + epsilon_);
      out[0] = (1.0 - norm_coefficient_post_) * x_new;
      out[1] = v_new;
      out[2] = h_new;
    });
  }

 private:
  int64_t opset_ = 1;
  double alpha_ = 0.9, beta_ = 0.999, epsilon_ = 1e-6, norm_coefficient_ = 0, norm_coefficient_post_ = 0;
};

}  // namespace

HI_REGISTER_OP(Adam, AdamOp)

}  // namespace hi::ops
