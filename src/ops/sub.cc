// Sub: elementwise a - b with numpy broadcasting.
#include "ops/elementwise.h"
#include "ops/numeric.h"

namespace hi::ops {
namespace {

struct SubFn {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(wrap_sub(a, b));
  }  // integers wrap, as in numpy
};

}  // namespace

HI_REGISTER_OP(Sub, BinaryOp<kNumericTypes, SubFn>)

}  // namespace hi::ops
