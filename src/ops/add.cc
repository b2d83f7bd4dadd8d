// Add: elementwise a + b with numpy broadcasting.
#include "ops/elementwise.h"
#include "ops/numeric.h"

namespace hi::ops {
namespace {

struct AddFn {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(wrap_add(a, b));
  }  // integers wrap, as in numpy
};

}  // namespace

HI_REGISTER_OP(Add, BinaryOp<kNumericTypes, AddFn>)

}  // namespace hi::ops
