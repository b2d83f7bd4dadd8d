// ReduceLogSumExp: log(sum(exp(x))) over the axes, computed as max + log(sum(exp(x - max))) so
// large inputs do not overflow (-inf over an empty set).
#include "ops/reduce_util.h"

namespace hi::ops {
namespace {

struct ReduceLogSumExpFn {
  static constexpr uint64_t kTypes = kFloatTypes;
  static constexpr int64_t kAxesInputSince = 18;
  static constexpr bool kNeedsMax = true;
  template <typename T>
  using Acc = double;
  template <typename T, typename A>
  static A init() {
    return A(0);
  }
  template <typename A>
  static A step(A acc, A x, A shift) {
    return acc + std::exp(x - shift);
  }
  template <typename A>
  static A finish(A acc, int64_t /*count*/, A shift) {
    return std::log(acc) + shift;
  }
};

}  // namespace

HI_REGISTER_OP(ReduceLogSumExp, ReduceOp<ReduceLogSumExpFn>)

}  // namespace hi::ops
