// HardSigmoid: max(0, min(1, alpha * x + beta)), alpha 0.2 and beta 0.5 by default.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct HardSigmoidFn {
  float alpha = 0.2f, beta = 0.5f;
  Status init(InitContext& ctx) {
    alpha = ctx.get_float("alpha", 0.2f);
    beta = ctx.get_float("beta", 0.5f);
    return Status::ok();
  }
  template <typename C>
  C operator()(C x) const {
    const C y = static_cast<C>(alpha) * x + static_cast<C>(beta);
    return std::isnan(y) ? y : std::max(C(0), std::min(C(1), y));
  }
};

}  // namespace

HI_REGISTER_OP(HardSigmoid, ActivationOp<kFloatTypes, HardSigmoidFn>)

}  // namespace hi::ops
