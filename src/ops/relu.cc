// Relu: elementwise max(x, 0).
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct ReluFn {
  template <typename T>
  T operator()(T x) const {
    return x > T(0) ? x : T(0);
  }
};

}  // namespace

HI_REGISTER_OP(Relu, UnaryOp<kSignedNumericTypes, ReluFn>)

}  // namespace hi::ops
