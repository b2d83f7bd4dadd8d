// ReduceL1: the sum of absolute values over the axes (0 over an empty set).
#include "ops/reduce_util.h"

namespace hi::ops {
namespace {

struct ReduceL1Fn {
  static constexpr uint64_t kTypes = kReduceTypes;
  static constexpr int64_t kAxesInputSince = 18;
  static constexpr bool kNeedsMax = false;
  template <typename T>
  using Acc = wide_t<T>;
  template <typename T, typename A>
  static A init() {
    return A(0);
  }
  template <typename A>
  static A step(A acc, A x, A /*shift*/) {
    return wrap_add(acc, wrap_abs(x));
  }
  template <typename A>
  static A finish(A acc, int64_t /*count*/, A /*shift*/) {
    return acc;
  }
};

}  // namespace

HI_REGISTER_OP(ReduceL1, ReduceOp<ReduceL1Fn>)

}  // namespace hi::ops
