// GreaterOrEqual: bool a >= b over the numeric types with numpy broadcasting.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct GreaterOrEqualFn {
  template <typename T>
  bool operator()(T a, T b) const {
    return a >= b;
  }
};

}  // namespace

HI_REGISTER_OP(GreaterOrEqual, CompareOp<kNumericTypes, GreaterOrEqualFn>)

}  // namespace hi::ops
