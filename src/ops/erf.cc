// Erf: elementwise the Gauss error function.
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct ErfFn {
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(std::erf(x));
  }
};

}  // namespace

HI_REGISTER_OP(Erf, UnaryOp<kFloatTypes, ErfFn>)

}  // namespace hi::ops
