// HardSwish: x * max(0, min(1, x / 6 + 0.5)).
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct HardSwishFn : NoAttributes {
  // No NaN test: a NaN x makes the product NaN whatever the clamp gives (and the loop
  // vectorises without the test).
  template <typename C>
  C operator()(C x) const {
    const C y = x / C(6) + C(0.5);
    return x * std::max(C(0), std::min(C(1), y));
  }
};

}  // namespace

HI_REGISTER_OP(HardSwish, ActivationOp<kFloatTypes, HardSwishFn>)
// The same op for graphs whose ai.onnx opset predates HardSwish (14): what fuse_hard_swish
// makes of hard-swish written out in elementwise ops there.
HI_REGISTER_OP(HardSwishInternal, ActivationOp<kFloatTypes, HardSwishFn>)

}  // namespace hi::ops
