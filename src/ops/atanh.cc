// Atanh: elementwise std::atanh.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct AtanhFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::atanh(x);
  }
};

}  // namespace

HI_REGISTER_OP(Atanh, ActivationOp<kFloatTypes, AtanhFn>)

}  // namespace hi::ops
