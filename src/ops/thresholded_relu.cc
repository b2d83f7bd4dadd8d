// ThresholdedRelu: x for x > alpha, 0 otherwise (alpha defaults to 1).
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct ThresholdedReluFn {
  float alpha = 1.f;
  Status init(InitContext& ctx) {
    alpha = ctx.get_float("alpha", 1.f);
    return Status::ok();
  }
  template <typename C>
  C operator()(C x) const {
    return x > static_cast<C>(alpha) ? x : C(0);
  }
};

}  // namespace

HI_REGISTER_OP(ThresholdedRelu, ActivationOp<kFloatTypes, ThresholdedReluFn>)

}  // namespace hi::ops
