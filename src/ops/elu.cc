// Elu: x for x > 0, alpha * (exp(x) - 1) otherwise (alpha defaults to 1).
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct EluFn {
  float alpha = 1.f;
  Status init(InitContext& ctx) {
    alpha = ctx.get_float("alpha", 1.f);
    return Status::ok();
  }
  template <typename C>
  C operator()(C x) const {
    return x > C(0) ? x : static_cast<C>(alpha) * std::expm1(x);
  }
};

}  // namespace

HI_REGISTER_OP(Elu, ActivationOp<kFloatTypes, EluFn>)

}  // namespace hi::ops
