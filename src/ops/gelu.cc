// Gelu (opset 20): 0.5 x (1 + erf(x / sqrt 2)), or its tanh approximation with approximate="tanh".
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct GeluFn {
  bool tanh_approx = false;
  Status init(InitContext& ctx) {
    const std::string a = ctx.get_string("approximate", "none");
    if (a != "none" && a != "tanh")
      return ctx.fail(StatusCode::kInvalidModel, "approximate must be \"none\" or \"tanh\", got \"", a, "\"");
    tanh_approx = a == "tanh";
    return Status::ok();
  }
  template <typename C>
  C operator()(C x) const {
    if (tanh_approx) {
      const C k = static_cast<C>(0.79788456080286535588);  // sqrt(2 / pi)
      return C(0.5) * x * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x)));
    }
    return C(0.5) * x * (C(1) + std::erf(x * static_cast<C>(0.70710678118654752440)));
  }
};

}  // namespace

HI_REGISTER_OP(Gelu, ActivationOp<kFloatTypes, GeluFn>)

}  // namespace hi::ops
