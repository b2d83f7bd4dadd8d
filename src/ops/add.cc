// Add: elementwise a + b with numpy broadcasting.
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct AddFn {
  template <typename T>
  T operator()(T a, T b) const { return static_cast<T>(a + b); }
};

}  // namespace

HI_REGISTER_OP(Add, BinaryOp<kNumericTypes, AddFn>)

}  // namespace hi::ops
