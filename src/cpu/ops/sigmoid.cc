// Sigmoid on the CPU: float32 on the vector activation kernels.
#include "cpu/ops/cpu_ops.h"
#include "cpu/ops/vector_activation.h"
#include "ops/sigmoid.h"

namespace hi::cpu {

HI_REGISTER_CPU_OP(Sigmoid, VectorActivationOp<ops::SigmoidOp, Activation::Kind::kSigmoid>)

}  // namespace hi::cpu
