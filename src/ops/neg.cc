// Neg: elementwise -x.
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct NegFn {
  template <typename T>
  T operator()(T x) const { return static_cast<T>(-x); }
};

}  // namespace

HI_REGISTER_OP(Neg, UnaryOp<kSignedNumericTypes, NegFn>)

}  // namespace hi::ops
