// Cos: elementwise std::cos.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct CosFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::cos(x);
  }
};

}  // namespace

HI_REGISTER_OP(Cos, ActivationOp<kFloatTypes, CosFn>)

}  // namespace hi::ops
