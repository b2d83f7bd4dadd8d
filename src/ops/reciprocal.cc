// Reciprocal: elementwise 1 / x.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct ReciprocalFn {
  template <typename T>
  T operator()(T x) const {
    return T(1) / x;
  }
};

}  // namespace

HI_REGISTER_OP(Reciprocal, UnaryOp<kFloatTypes, ReciprocalFn>)

}  // namespace hi::ops
