// LeakyRelu: x for x >= 0, alpha * x otherwise (alpha defaults to 0.01).
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct LeakyReluFn {
  float alpha = 0.01f;
  Status init(InitContext& ctx) {
    alpha = ctx.get_float("alpha", 0.01f);
    return Status::ok();
  }
  template <typename C>
  C operator()(C x) const {
    return x < C(0) ? static_cast<C>(alpha) * x : x;
  }
};

}  // namespace

HI_REGISTER_OP(LeakyRelu, ActivationOp<kFloatTypes, LeakyReluFn>)

}  // namespace hi::ops
