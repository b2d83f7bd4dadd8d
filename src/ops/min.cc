// Min: elementwise minimum of any number of inputs, with broadcasting; NaN wins.
#include "ops/variadic.h"

namespace hi::ops {
namespace {

struct MinFn {
  template <typename C>
  C operator()(C a, C b) const {
    if (is_nan_value(a)) return a;
    if (is_nan_value(b)) return b;
    return b < a ? b : a;
  }
};

}  // namespace

HI_REGISTER_OP(Min, VariadicOp<kNumericTypes, MinFn, KeepFn>)

}  // namespace hi::ops
