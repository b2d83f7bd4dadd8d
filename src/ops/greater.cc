// Greater: bool a > b over the numeric types with numpy broadcasting.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct GreaterFn {
  template <typename T>
  bool operator()(T a, T b) const {
    return a > b;
  }
};

}  // namespace

HI_REGISTER_OP(Greater, CompareOp<kNumericTypes, GreaterFn>)

}  // namespace hi::ops
