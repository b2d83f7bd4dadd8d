// Swish (opset 24): y = x * sigmoid(alpha * x), alpha a float attribute (default 1).
#include <cmath>

#include "ops/activation.h"

namespace hi::ops {
namespace {

struct SwishFn {
  double alpha = 1.0;

  Status init(InitContext& ctx) {
    alpha = ctx.get_float("alpha", 1.f);
    return ctx.status();
  }
  template <typename C>
  C operator()(C x) const {
    const double v = static_cast<double>(x);
    return static_cast<C>(v / (1.0 + std::exp(-alpha * v)));
  }
};

}  // namespace

HI_REGISTER_OP(Swish, ActivationOp<kFloatTypes, SwishFn>)

}  // namespace hi::ops
