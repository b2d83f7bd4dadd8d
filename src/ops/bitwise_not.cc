// BitwiseNot (opset 18): ~x over integer tensors (every bit flipped).
#include "ops/bitwise_util.h"

namespace hi::ops {
namespace {

struct BitNotFn {
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(~x);
  }
};

}  // namespace

HI_REGISTER_OP(BitwiseNot, BitwiseUnaryOp<BitNotFn>)

}  // namespace hi::ops
