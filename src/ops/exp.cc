// Exp: elementwise e^x.
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct ExpFn {
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(std::exp(x));
  }
};

}  // namespace

HI_REGISTER_OP(Exp, UnaryOp<kFloatTypes, ExpFn>)

}  // namespace hi::ops
