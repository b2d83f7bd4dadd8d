// 2-D max and average pooling (kernels/pool2d.cu), NCHW, float32 and float16. Global average
// pooling is a mean over the rows of [batch * channels, height * width]: reduce() in reduce.h.
#pragma once

#include <cstdint>

#include "backends/gpu/device_api.h"
#include "backends/gpu/kernels/host_device.h"
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

// The taps of one window along one dim: the window starts at `start` (o * stride - pad_begin,
// never before -pad_begin) and has `kernel` taps `dilation` apart. [first, end) are the taps
// inside the input [0, in); `padded` counts those before in + pad_end. Computed, not walked:
// auto_pad SAME allows a kernel far larger than the input, and a window must cost no more than
// the input it reads.
struct PoolTaps {
  int64_t first = 0, end = 0, padded = 0;
};
HI_HOST_DEVICE inline PoolTaps pool_taps(int64_t start, int64_t in, int64_t pad_end, int64_t kernel, int64_t dilation) {
  PoolTaps t;
  t.first = start >= 0 ? 0 : (-start - 1) / dilation + 1;
  t.end = in - 1 - start < 0 ? 0 : (in - 1 - start) / dilation + 1;
  if (t.end > kernel) t.end = kernel;
  if (t.end < t.first) t.end = t.first;
  const int64_t reach = in + pad_end - 1 - start;
  t.padded = reach < 0 ? 0 : reach / dilation + 1;
  if (t.padded > kernel) t.padded = kernel;
  return t;
}

// Max ignores padding; a window entirely in the padding gives -inf (max) or 0 (average over
// nothing). Errors name the geometry that does not fit.
Status pool2d(PoolKind kind, DType dtype, const Pool2dDesc& desc, const void* x, void* y, Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
