// ParametricSoftplus (opset 1, experimental; removed from ONNX in opset 10):
// y = alpha * ln(1 + exp(beta * x)). alpha and beta are required (the spec gives no defaults).
// Computed as alpha * (max(z, 0) + log1p(exp(-|z|))) with z = beta * x, which cannot overflow.
#include <algorithm>
#include <cmath>

#include "ops/activation.h"

namespace hi::ops {
namespace {

struct ParametricSoftplusFn {
  float alpha = 1.f, beta = 1.f;
  Status init(InitContext& ctx) {
    for (const char* name : {"alpha", "beta"})
      if (!ctx.has(name))
        return ctx.fail(StatusCode::kInvalidModel, "ParametricSoftplus (opset ", ctx.opset(), "): required attribute '",
                        name, "' is missing");
    alpha = ctx.get_float("alpha", 1.f);
    beta = ctx.get_float("beta", 1.f);
    return ctx.status();
  }
  template <typename C>
  C operator()(C x) const {
    const C z = static_cast<C>(beta) * x;
    return static_cast<C>(alpha) * (std::max(z, C(0)) + std::log1p(std::exp(-std::abs(z))));
  }
};

}  // namespace

HI_REGISTER_OP(ParametricSoftplus, ActivationOp<kFloatTypes, ParametricSoftplusFn>)

}  // namespace hi::ops
