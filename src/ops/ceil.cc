// Ceil: elementwise ceiling.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct CeilFn {
  template <typename T>
  T operator()(T x) const {
    return std::ceil(x);
  }
};

}  // namespace

HI_REGISTER_OP(Ceil, UnaryOp<kFloatTypes, CeilFn>)

}  // namespace hi::ops
