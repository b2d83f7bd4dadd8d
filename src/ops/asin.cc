// Asin: elementwise std::asin.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct AsinFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::asin(x);
  }
};

}  // namespace

HI_REGISTER_OP(Asin, ActivationOp<kFloatTypes, AsinFn>)

}  // namespace hi::ops
