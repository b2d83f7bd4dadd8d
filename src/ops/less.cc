// Less: bool a < b over the numeric types with numpy broadcasting.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct LessFn {
  template <typename T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};

}  // namespace

HI_REGISTER_OP(Less, CompareOp<kNumericTypes, LessFn>)

}  // namespace hi::ops
