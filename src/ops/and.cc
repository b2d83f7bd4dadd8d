// And: logical a and b over bool tensors with numpy broadcasting.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct AndFn {
  template <typename T>
  bool operator()(T a, T b) const {
    return a && b;
  }
};

}  // namespace

HI_REGISTER_OP(And, CompareOp<bit(DType::kBool), AndFn>)

}  // namespace hi::ops
