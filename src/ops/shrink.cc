// Shrink (opset 9): y = x + bias if x < -lambd, x - bias if x > lambd, else 0. Computed in
// double from the float attributes and converted once to the input type (integers saturate).
#include "ops/activation.h"
#include "ops/numeric.h"

namespace hi::ops {
namespace {

struct ShrinkFn {
  double lambd = 0.5, bias = 0;

  Status init(InitContext& ctx) {
    lambd = ctx.get_float("lambd", 0.5f);
    bias = ctx.get_float("bias", 0.f);
    return ctx.status();
  }
  template <typename C>
  C operator()(C x) const {
    const double v = static_cast<double>(x);
    const double r = v < -lambd ? v + bias : v > lambd ? v - bias : 0.0;
    return saturate_cast<C>(r);
  }
};

}  // namespace

HI_REGISTER_OP(Shrink, ActivationOp<kNumericTypes, ShrinkFn>)

}  // namespace hi::ops
