// 2-D max and average pooling (kernels/pool2d.cu), NCHW, float32 and float16. Global average
// pooling is a mean over the rows of [batch * channels, height * width]: reduce() in reduce.h.
#pragma once

#include <cstdint>

#include "backends/gpu/device_api.h"
#include "hipinfer/dtype.h"

namespace hi::gpu::HI_GPU_NS {

enum class PoolKind { kMax, kAverage };

struct Pool2dDesc {
  int64_t batch = 0, channels = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  // Average: divide by the whole window inside the padded input (true) or by the window's
  // elements inside the input alone (false, ONNX's default).
  bool count_include_pad = false;
};

// Max ignores padding; a window entirely in the padding gives -inf (max) or 0 (average over
// nothing). Errors name the geometry that does not fit.
Status pool2d(PoolKind kind, DType dtype, const Pool2dDesc& desc, const void* x, void* y, Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
