// MatMul on the CPU: the op's float32 products on sgemm.
#include "backends/cpu/ops/cpu_ops.h"
#include "backends/cpu/ops/sgemm_product.h"
#include "ops/matmul.h"

namespace hi::cpu {

HI_REGISTER_CPU_OP(MatMul, SgemmProduct<ops::MatMulOp>)

}  // namespace hi::cpu
