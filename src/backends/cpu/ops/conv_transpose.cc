// ConvTranspose on the CPU: the op's float32 column products on sgemm.
#include "backends/cpu/ops/cpu_ops.h"
#include "backends/cpu/ops/sgemm_product.h"
#include "ops/conv_transpose.h"

namespace hi::cpu {

HI_REGISTER_CPU_OP(ConvTranspose, SgemmProduct<ops::ConvTransposeOp>)

}  // namespace hi::cpu
