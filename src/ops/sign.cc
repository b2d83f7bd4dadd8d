// Sign: elementwise -1, 0 or 1 (NaN stays NaN).
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct SignFn {
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x)) return x;
    }
    if constexpr (std::is_unsigned_v<T>) return static_cast<T>(x != 0);
    else return static_cast<T>(static_cast<int>(T(0) < x) - static_cast<int>(x < T(0)));
  }
};

}  // namespace

HI_REGISTER_OP(Sign, UnaryOp<kNumericTypes, SignFn>)

}  // namespace hi::ops
