// Cosh: elementwise std::cosh.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct CoshFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::cosh(x);
  }
};

}  // namespace

HI_REGISTER_OP(Cosh, ActivationOp<kFloatTypes, CoshFn>)

}  // namespace hi::ops
