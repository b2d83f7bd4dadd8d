// Round: elementwise round to the nearest integer, halves to even (2.5 -> 2, -1.5 -> -2).
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct RoundFn {
  template <typename T>
  T operator()(T x) const {
    const T r = std::round(x);  // halves away from zero
    if (std::abs(x - std::trunc(x)) == T(0.5)) return T(2) * std::round(x / T(2));
    return r;
  }
};

}  // namespace

HI_REGISTER_OP(Round, UnaryOp<kFloatTypes, RoundFn>)

}  // namespace hi::ops
