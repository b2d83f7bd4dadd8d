// Sub: elementwise a - b with numpy broadcasting.
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct SubFn {
  template <typename T>
  T operator()(T a, T b) const { return static_cast<T>(a - b); }
};

}  // namespace

HI_REGISTER_OP(Sub, BinaryOp<kNumericTypes, SubFn>)

}  // namespace hi::ops
