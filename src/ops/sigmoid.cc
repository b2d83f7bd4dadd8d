#include "ops/sigmoid.h"

namespace hi::ops {

HI_REGISTER_OP(Sigmoid, SigmoidOp)

}  // namespace hi::ops
