// And: logical a and b over bool tensors with numpy broadcasting.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct AndFn {
  template <typename T>
  bool operator()(T a, T b) const { return a && b; }
};

}  // namespace

HI_REGISTER_OP(And, WithArity<CompareOp<bit(DType::kBool), AndFn>, 2, 2>)

}  // namespace hi::ops
