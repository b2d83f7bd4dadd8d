// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), alpha defaults to 1.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct CeluFn {
  float alpha = 1.f;
  Status init(InitContext& ctx) {
    alpha = ctx.get_float("alpha", 1.f);
    if (alpha == 0.f) return ctx.fail(StatusCode::kInvalidModel, "alpha must be nonzero (Celu divides by it)");
    return Status::ok();
  }
  template <typename C>
  C operator()(C x) const {
    const C a = static_cast<C>(alpha);
    return std::max(C(0), x) + std::min(C(0), a * std::expm1(x / a));
  }
};

}  // namespace

HI_REGISTER_OP(Celu, ActivationOp<kFloatTypes, CeluFn>)

}  // namespace hi::ops
