// Floor: elementwise floor.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct FloorFn {
  template <typename T>
  T operator()(T x) const {
    return std::floor(x);
  }
};

}  // namespace

HI_REGISTER_OP(Floor, UnaryOp<kFloatTypes, FloorFn>)

}  // namespace hi::ops
