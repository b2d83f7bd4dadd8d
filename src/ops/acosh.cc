// Acosh: elementwise std::acosh.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct AcoshFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::acosh(x);
  }
};

}  // namespace

HI_REGISTER_OP(Acosh, ActivationOp<kFloatTypes, AcoshFn>)

}  // namespace hi::ops
