// Softsign: x / (1 + |x|).
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct SoftsignFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return x / (C(1) + std::abs(x));
  }
};

}  // namespace

HI_REGISTER_OP(Softsign, ActivationOp<kFloatTypes, SoftsignFn>)

}  // namespace hi::ops
