// Sin: elementwise std::sin.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct SinFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::sin(x);
  }
};

}  // namespace

HI_REGISTER_OP(Sin, ActivationOp<kFloatTypes, SinFn>)

}  // namespace hi::ops
