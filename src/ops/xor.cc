// Xor: logical a xor b over bool tensors with numpy broadcasting.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct XorFn {
  template <typename T>
  bool operator()(T a, T b) const {
    return a != b;
  }
};

}  // namespace

HI_REGISTER_OP(Xor, CompareOp<bit(DType::kBool), XorFn>)

}  // namespace hi::ops
