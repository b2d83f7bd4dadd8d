// ReduceL2: the square root of the sum of squares over the axes (0 over an empty set).
#include "ops/reduce_util.h"

namespace hi::ops {
namespace {

struct ReduceL2Fn {
  static constexpr uint64_t kTypes = kReduceTypes;
  static constexpr int64_t kAxesInputSince = 18;
  static constexpr bool kNeedsMax = false;
  template <typename T>
  using Acc = double;
  template <typename T, typename A>
  static A init() {
    return A(0);
  }
  template <typename A>
  static A step(A acc, A x, A /*shift*/) {
    return acc + x * x;
  }
  template <typename A>
  static A finish(A acc, int64_t /*count*/, A /*shift*/) {
    return std::sqrt(acc);
  }
};

}  // namespace

HI_REGISTER_OP(ReduceL2, ReduceOp<ReduceL2Fn>)

}  // namespace hi::ops
