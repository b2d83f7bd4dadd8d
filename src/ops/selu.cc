// Selu: gamma * x for x > 0, gamma * alpha * (exp(x) - 1) otherwise.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct SeluFn {
  // The defaults are the float32 values the ONNX spec gives.
  float alpha = 1.67326319217681884765625f;
  float gamma = 1.05070102214813232421875f;
  Status init(InitContext& ctx) {
    alpha = ctx.get_float("alpha", alpha);
    gamma = ctx.get_float("gamma", gamma);
    return Status::ok();
  }
  template <typename C>
  C operator()(C x) const {
    const C a = static_cast<C>(alpha), g = static_cast<C>(gamma);
    return x > C(0) ? g * x : g * a * std::expm1(x);
  }
};

}  // namespace

HI_REGISTER_OP(Selu, ActivationOp<kFloatTypes, SeluFn>)

}  // namespace hi::ops
