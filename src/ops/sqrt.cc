// Sqrt: elementwise the square root.
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct SqrtFn {
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(std::sqrt(x));
  }
};

}  // namespace

HI_REGISTER_OP(Sqrt, UnaryOp<kFloatTypes, SqrtFn>)

}  // namespace hi::ops
