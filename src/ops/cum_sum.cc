// CumSum (opset 11): running sum along an axis; see cumulative_util.h.
#include "ops/cumulative_util.h"

namespace hi::ops {
namespace {

struct SumStep {
  template <typename A>
  static A identity() {
    return A(0);
  }
  template <typename A>
  static A combine(A acc, A x) {
    return wrap_add(acc, x);
  }
};

}  // namespace

HI_REGISTER_OP(CumSum, CumulativeOp<SumStep>)

}  // namespace hi::ops
