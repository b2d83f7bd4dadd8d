// ReduceMean: the mean over the axes, in double (NaN over an empty set; 0 for integer types,
// where the spec leaves it undefined). Integer means truncate toward zero, as numpy's astype.
#include "ops/reduce_util.h"

namespace hi::ops {
namespace {

struct ReduceMeanFn {
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
    return acc + x;
  }
  template <typename A>
  static A finish(A acc, int64_t count, A /*shift*/) {
    return acc / static_cast<A>(count);
  }
};

}  // namespace

HI_REGISTER_OP(ReduceMean, ReduceOp<ReduceMeanFn>)

}  // namespace hi::ops
