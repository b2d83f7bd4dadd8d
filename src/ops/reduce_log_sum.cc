// ReduceLogSum: log of the sum over the axes (-inf over an empty set).
#include "ops/reduce_util.h"

namespace hi::ops {
namespace {

struct ReduceLogSumFn {
  static constexpr uint64_t kTypes = kFloatTypes;
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
    return acc + x;
  }
  template <typename A>
  static A finish(A acc, int64_t /*count*/, A /*shift*/) {
    return std::log(acc);
  }
};

}  // namespace

HI_REGISTER_OP(ReduceLogSum, ReduceOp<ReduceLogSumFn>)

}  // namespace hi::ops
