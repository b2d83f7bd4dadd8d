// Tanh: elementwise tanh(x).
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct TanhFn {
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(std::tanh(x));
  }
};

}  // namespace

HI_REGISTER_OP(Tanh, UnaryOp<kFloatTypes, TanhFn>)

}  // namespace hi::ops
