#include "ops/conv_transpose.h"

namespace hi::ops {

HI_REGISTER_OP(ConvTranspose, ConvTransposeOp)

}  // namespace hi::ops
