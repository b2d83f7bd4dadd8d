// Sum: elementwise sum of any number of inputs, with broadcasting.
#include "ops/numeric.h"
#include "ops/variadic.h"

namespace hi::ops {
namespace {

struct SumFn {
  template <typename C>
  C operator()(C a, C b) const {
    return wrap_add(a, b);
  }  // integers wrap, as in numpy
};

}  // namespace

HI_REGISTER_OP(Sum, VariadicOp<kFloatTypes, SumFn, KeepFn>)

}  // namespace hi::ops
