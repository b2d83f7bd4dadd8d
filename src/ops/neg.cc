// Neg: elementwise -x.
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct NegFn {
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {  // in unsigned arithmetic: -INT_MIN wraps to itself, as in numpy
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(x)));
    } else {
      return static_cast<T>(-x);
    }
  }
};

}  // namespace

HI_REGISTER_OP(Neg, UnaryOp<kSignedNumericTypes, NegFn>)

}  // namespace hi::ops
