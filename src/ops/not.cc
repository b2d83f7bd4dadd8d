// Not: logical negation of a bool tensor.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct NotFn {
  bool operator()(bool x) const { return !x; }
};

}  // namespace

HI_REGISTER_OP(Not, UnaryOp<bit(DType::kBool), NotFn>)

}  // namespace hi::ops
