#include "ops/tanh.h"

namespace hi::ops {

HI_REGISTER_OP(Tanh, TanhOp)

}  // namespace hi::ops
