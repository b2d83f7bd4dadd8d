#include "ops/matmul.h"

namespace hi::ops {

HI_REGISTER_OP(MatMul, MatMulOp)

}  // namespace hi::ops
