// Affine (opset 1, experimental; removed from ONNX in opset 10): y = alpha * x + beta, with
// alpha = 1 and beta = 0 by default.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct AffineFn {
  float alpha = 1.f, beta = 0.f;
  Status init(InitContext& ctx) {
    alpha = ctx.get_float("alpha", 1.f);
    beta = ctx.get_float("beta", 0.f);
    return ctx.status();
  }
  template <typename C>
  C operator()(C x) const {
    return static_cast<C>(alpha) * x + static_cast<C>(beta);
  }
};

}  // namespace

HI_REGISTER_OP(Affine, ActivationOp<kFloatTypes, AffineFn>)

}  // namespace hi::ops
