// Gemm on the CPU: the op's float32 product on sgemm.
#include "backends/cpu/ops/cpu_ops.h"
#include "backends/cpu/ops/sgemm_product.h"
#include "ops/gemm.h"

namespace hi::cpu {

HI_REGISTER_CPU_OP(Gemm, SgemmProduct<ops::GemmOp>)

}  // namespace hi::cpu
