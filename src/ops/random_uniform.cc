// RandomUniform (opset 1): see random_op.h.
#include "ops/random_op.h"

namespace hi::ops {

HI_REGISTER_OP(RandomUniform, RandomOp<UniformDist, false>)

}  // namespace hi::ops
