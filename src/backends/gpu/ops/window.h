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

// Copies the window into a kernel descriptor with the fields Conv2dDesc and Pool2dDesc share
// (the output size already accounts for the far pads).
template <typename Desc>
void set_window(Desc& d, const Window2d& w) {
  d.kernel_h = w.kernel[0];
  d.kernel_w = w.kernel[1];
  d.stride_h = w.strides[0];
  d.stride_w = w.strides[1];
  d.dilation_h = w.dilations[0];
  d.dilation_w = w.dilations[1];
  d.pad_top = w.pads[0];
  d.pad_left = w.pads[1];
}

}  // namespace hi::gpu::HI_GPU_NS
