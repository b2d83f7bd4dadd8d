// Atan: elementwise std::atan.
#include "ops/activation.h"

namespace hi::ops {
namespace {

struct AtanFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::atan(x);
  }
};

}  // namespace

HI_REGISTER_OP(Atan, ActivationOp<kFloatTypes, AtanFn>)

}  // namespace hi::ops
