// ReduceSum: the sum over the axes (0 over an empty set). Integer sums wrap.
#include "ops/reduce_util.h"

namespace hi::ops {
namespace {

struct ReduceSumFn {
  static constexpr uint64_t kTypes = kReduceTypes;
  static constexpr int64_t kAxesInputSince = 13;
  static constexpr bool kNeedsMax = false;
  template <typename T>
  using Acc = wide_t<T>;
  template <typename T, typename A>
  static A init() {
    return A(0);
  }
  template <typename A>
  static A step(A acc, A x, A /*shift*/) {
    return wrap_add(acc, x);
  }
  template <typename A>
  static A finish(A acc, int64_t /*count*/, A /*shift*/) {
    return acc;
  }
};

}  // namespace

HI_REGISTER_OP(ReduceSum, ReduceOp<ReduceSumFn>)

}  // namespace hi::ops
