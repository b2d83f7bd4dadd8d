// Max: elementwise maximum of any number of inputs, with broadcasting; NaN wins.
#include "ops/variadic.h"

namespace hi::ops {
namespace {

struct MaxFn {
  template <typename C>
  C operator()(C a, C b) const {
    if (is_nan_value(a)) return a;
    if (is_nan_value(b)) return b;
    return a < b ? b : a;
  }
};

}  // namespace

HI_REGISTER_OP(Max, VariadicOp<kNumericTypes, MaxFn, KeepFn>)

}  // namespace hi::ops
