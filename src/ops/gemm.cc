#include "ops/gemm.h"

namespace hi::ops {

HI_REGISTER_OP(Gemm, GemmOp)

}  // namespace hi::ops
