// Mish: x * tanh(softplus(x)).
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct MishFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    const C softplus = x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    return x * std::tanh(softplus);
  }
};

}  // namespace

HI_REGISTER_OP(Mish, ActivationOp<kFloatTypes, MishFn>)

}  // namespace hi::ops
