// ReduceProd: the product over the axes (1 over an empty set). Integer products wrap.
#include "ops/reduce_util.h"

namespace hi::ops {
namespace {

struct ReduceProdFn {
  static constexpr uint64_t kTypes = kReduceTypes;
  static constexpr int64_t kAxesInputSince = 18;
  static constexpr bool kNeedsMax = false;
  template <typename T>
  using Acc = wide_t<T>;
  template <typename T, typename A>
  static A init() {
    return A(1);
  }
  template <typename A>
  static A step(A acc, A x, A /*shift*/) {
    return wrap_mul(acc, x);
  }
  template <typename A>
  static A finish(A acc, int64_t /*count*/, A /*shift*/) {
    return acc;
  }
};

}  // namespace

HI_REGISTER_OP(ReduceProd, ReduceOp<ReduceProdFn>)

}  // namespace hi::ops
