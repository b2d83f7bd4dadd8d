// Gemm on the CPU: the op's float32 product on sgemm.
#include "cpu/ops/cpu_ops.h"
#include "cpu/ops/sgemm_product.h"
#include "ops/gemm.h"

namespace hi::cpu {

HI_REGISTER_CPU_OP(Gemm, SgemmProduct<ops::GemmOp>)

}  // namespace hi::cpu
