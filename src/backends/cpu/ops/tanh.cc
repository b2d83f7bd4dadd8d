// Tanh on the CPU: float32 on the vector activation kernels.
#include "backends/cpu/ops/cpu_ops.h"
#include "backends/cpu/ops/vector_activation.h"
#include "ops/tanh.h"

namespace hi::cpu {

HI_REGISTER_CPU_OP(Tanh, VectorActivationOp<ops::TanhOp, Activation::Kind::kTanh>)

}  // namespace hi::cpu
