// Tan: elementwise std::tan.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct TanFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::tan(x);
  }
};

}  // namespace

HI_REGISTER_OP(Tan, ActivationOp<kFloatTypes, TanFn>)

}  // namespace hi::ops
