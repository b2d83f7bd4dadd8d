// CumProd (opset 26): running product along an axis; see cumulative_util.h.
#include "ops/cumulative_util.h"

namespace hi::ops {
namespace {

struct ProdStep {
  template <typename A>
  static A identity() {
    return A(1);
  }
  template <typename A>
  static A combine(A acc, A x) {
    return wrap_mul(acc, x);
  }
};

}  // namespace

HI_REGISTER_OP(CumProd, CumulativeOp<ProdStep>)

}  // namespace hi::ops
