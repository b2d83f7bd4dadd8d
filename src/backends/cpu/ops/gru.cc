// GRU on the CPU: float32 products on sgemm, Sigmoid and Tanh gates on the vector kernels.
#include "backends/cpu/ops/cpu_ops.h"
#include "backends/cpu/ops/recurrent.h"

namespace hi::cpu {

HI_REGISTER_CPU_OP(GRU, CpuRecurrent<ops::GruOp>)

}  // namespace hi::cpu
