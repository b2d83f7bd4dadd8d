// Softplus: log(exp(x) + 1), computed without overflow for large x.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct SoftplusFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    // log(1 + e^x) = x + log(1 + e^-x): the second form for x > 0 keeps exp from overflowing.
    return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};

}  // namespace

HI_REGISTER_OP(Softplus, ActivationOp<kFloatTypes, SoftplusFn>)

}  // namespace hi::ops
