// 2-D windows (Conv, pooling) resolved for one input shape.
#pragma once

#include "backends/gpu/gpu_op.h"
#include "ops/conv_util.h"

namespace hi::gpu::HI_GPU_NS {

// Kernel (from the weights when the node has no kernel_shape), strides, dilations and the four
// pads (top, left, bottom, right).
struct Window2d {
  int64_t kernel[2], strides[2], dilations[2], pads[4];
};
Result<Window2d> resolve_window(const ops::WindowParams& params, const Shape& x, const Shape* weights);

}  // namespace hi::gpu::HI_GPU_NS
