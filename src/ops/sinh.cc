// Sinh: elementwise std::sinh.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct SinhFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::sinh(x);
  }
};

}  // namespace

HI_REGISTER_OP(Sinh, ActivationOp<kFloatTypes, SinhFn>)

}  // namespace hi::ops
