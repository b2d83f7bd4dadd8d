// BitwiseAnd (opset 18): a & b over integer tensors with numpy broadcasting.
#include "ops/bitwise_util.h"

namespace hi::ops {
namespace {

struct BitAndFn {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a & b);
  }
};

}  // namespace

HI_REGISTER_OP(BitwiseAnd, BitwiseBinaryOp<BitAndFn>)

}  // namespace hi::ops
