// Asinh: elementwise std::asinh.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct AsinhFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::asinh(x);
  }
};

}  // namespace

HI_REGISTER_OP(Asinh, ActivationOp<kFloatTypes, AsinhFn>)

}  // namespace hi::ops
