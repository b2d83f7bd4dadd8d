// RandomNormal (opset 1): see random_op.h.
#include "ops/random_op.h"

namespace hi::ops {

HI_REGISTER_OP(RandomNormal, RandomOp<NormalDist, false>)

}  // namespace hi::ops
