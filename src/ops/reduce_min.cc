// ReduceMin: the minimum over the axes; NaN wins; +inf (or the type's highest value) over an empty set.
#include "ops/reduce_util.h"

namespace hi::ops {
namespace {

struct ReduceMinFn {
  static constexpr uint64_t kTypes = kReduceTypes | bit(DType::kInt8) | bit(DType::kUInt8) | bit(DType::kBool);
  static constexpr int64_t kAxesInputSince = 18;
  static constexpr bool kNeedsMax = false;
  template <typename T>
  using Acc = wide_t<T>;
  template <typename T, typename A>
  static A init() {
    return highest_as<T, A>();
  }
  template <typename A>
  static A step(A acc, A x, A /*shift*/) {
    return (is_nan(x) || x < acc) ? x : acc;
  }
  template <typename A>
  static A finish(A acc, int64_t /*count*/, A /*shift*/) {
    return acc;
  }
};

}  // namespace

HI_REGISTER_OP(ReduceMin, ReduceOp<ReduceMinFn>)

}  // namespace hi::ops
