// Or: logical a or b over bool tensors with numpy broadcasting.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct OrFn {
  template <typename T>
  bool operator()(T a, T b) const {
    return a || b;
  }
};

}  // namespace

HI_REGISTER_OP(Or, CompareOp<bit(DType::kBool), OrFn>)

}  // namespace hi::ops
