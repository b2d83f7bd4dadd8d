// ScaledTanh (opset 1, experimental; removed from ONNX in opset 10): y = alpha * tanh(beta * x).
// The spec gives no defaults, so alpha and beta are required (as ONNX Runtime requires them).
#include <cmath>

#include "ops/activation.h"

namespace hi::ops {
namespace {

struct ScaledTanhFn {
  float alpha = 1.f, beta = 1.f;
  Status init(InitContext& ctx) {
    for (const char* name : {"alpha", "beta"})
      if (!ctx.has(name))
        return ctx.fail(StatusCode::kInvalidModel, "ScaledTanh (opset ", ctx.opset(), "): required attribute '", name,
                        "' is missing");
    alpha = ctx.get_float("alpha", 1.f);
    beta = ctx.get_float("beta", 1.f);
    return ctx.status();
  }
  template <typename C>
  C operator()(C x) const {
    return static_cast<C>(alpha) * std::tanh(static_cast<C>(beta) * x);
  }
};

}  // namespace

HI_REGISTER_OP(ScaledTanh, ActivationOp<kFloatTypes, ScaledTanhFn>)

}  // namespace hi::ops
