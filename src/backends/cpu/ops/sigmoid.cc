// Sigmoid on the CPU: float32 on the vector activation kernels.
#include "backends/cpu/ops/cpu_ops.h"
#include "backends/cpu/ops/vector_activation.h"
#include "ops/sigmoid.h"

namespace hi::cpu {

HI_REGISTER_CPU_OP(Sigmoid, VectorActivationOp<ops::SigmoidOp, Activation::Kind::kSigmoid>)

}  // namespace hi::cpu
