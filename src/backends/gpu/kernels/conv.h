// 2-D convolution (kernels/conv2d.cu), NCHW, as FusedConv computes it: y = act(conv(x, w) + bias +
// residual), with groups (depthwise included), strides, dilations and pads. float32 and float16
// storage with float32 accumulation. conv2d() runs float16 on matrix cores where the device has
// them (NVIDIA tensor cores, AMD CDNA MFMA: matrix_cores.h), everything else on the portable
// implicit-GEMM kernel every target runs; cuDNN and MIOpen plug in beside them and are checked
// against them.
#pragma once

#include <cstdint>

#include "backends/gpu/device_api.h"
#include "backends/gpu/kernels/elementwise.h"
#include "hipinfer/dtype.h"

namespace hi::gpu::HI_GPU_NS {

struct Conv2dDesc {
  int64_t batch = 0, in_channels = 0, in_h = 0, in_w = 0;
  int64_t out_channels = 0, out_h = 0, out_w = 0;
  int64_t groups = 1, kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;  // the output size already accounts for the far pads
  bool has_activation = false;
  UnaryOp activation;
};

// x [batch, in_channels, in_h, in_w]; w [out_channels, in_channels / groups, kernel_h, kernel_w];
// bias [out_channels] or null; residual like y or null; y [batch, out_channels, out_h, out_w].
// Errors name the geometry that does not fit.
Status conv2d(DType dtype, const Conv2dDesc& desc, const void* x, const void* w, const void* bias, const void* residual,
              void* y, Stream stream);

// The two kernels conv2d() chooses between, callable directly so tests can compare them.
// The portable implicit GEMM (kernels/conv2d.cu): float32 and float16, on any device.
Status conv2d_tiled(DType dtype, const Conv2dDesc& desc, const void* x, const void* w, const void* bias,
                    const void* residual, void* y, Stream stream);
// float16 on matrix cores (kernels/conv2d_mma.cu), float32 accumulation and one rounding per
// element. kUnsupported for other dtypes and on a current device without them.
Status conv2d_matrix_cores(DType dtype, const Conv2dDesc& desc, const void* x, const void* w, const void* bias,
                           const void* residual, void* y, Stream stream);

// The geometry checks all three share; ok for an empty output, which then needs no launch.
Status validate_conv2d(const Conv2dDesc& desc, const void* x, const void* w, const void* y);

}  // namespace hi::gpu::HI_GPU_NS
