// Abs: elementwise |x|. The most negative signed integer stays itself (two's complement wrap).
#include <type_traits>

#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct AbsFn {
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::abs(x);
    } else if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else {  // negate in unsigned arithmetic: no overflow for the minimum value
      using U = std::make_unsigned_t<T>;
      return x < 0 ? static_cast<T>(U(0) - static_cast<U>(x)) : x;
    }
  }
};

}  // namespace

HI_REGISTER_OP(Abs, UnaryOp<kNumericTypes, AbsFn>)

}  // namespace hi::ops
