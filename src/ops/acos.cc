// Acos: elementwise std::acos.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct AcosFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::acos(x);
  }
};

}  // namespace

HI_REGISTER_OP(Acos, ActivationOp<kFloatTypes, AcosFn>)

}  // namespace hi::ops
