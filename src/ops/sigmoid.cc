// Sigmoid: elementwise 1 / (1 + exp(-x)).
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct SigmoidFn {
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(T(1) / (T(1) + std::exp(-x)));
  }
};

}  // namespace

HI_REGISTER_OP(Sigmoid, UnaryOp<kFloatTypes, SigmoidFn>)

}  // namespace hi::ops
