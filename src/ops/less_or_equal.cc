// LessOrEqual: bool a <= b over the numeric types with numpy broadcasting.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct LessOrEqualFn {
  template <typename T>
  bool operator()(T a, T b) const {
    return a <= b;
  }
};

}  // namespace

HI_REGISTER_OP(LessOrEqual, CompareOp<kNumericTypes, LessOrEqualFn>)

}  // namespace hi::ops
