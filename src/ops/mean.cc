// Mean: elementwise mean of any number of inputs, with broadcasting.
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

struct DivideByCountFn {
  template <typename C>
  C operator()(C acc, int64_t count) const {
    return acc / static_cast<C>(count);
  }
};

}  // namespace

HI_REGISTER_OP(Mean, VariadicOp<kFloatTypes, SumFn, DivideByCountFn>)

}  // namespace hi::ops
