// RandomUniformLike (opset 1): see random_op.h.
#include "ops/random_op.h"

namespace hi::ops {

HI_REGISTER_OP(RandomUniformLike, RandomOp<UniformDist, true>)

}  // namespace hi::ops
