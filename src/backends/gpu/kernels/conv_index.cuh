// What the two implicit-GEMM convolution kernels (conv2d.cu, conv2d_mma.cu) share: where an
// element of the im2col matrix comes from, and the epilogue. Include after a header that brings
// in the vendor header (tile_gemm.cuh or mma_tile.cuh).
#pragma once

#include "backends/gpu/kernels/activation.cuh"
#include "backends/gpu/kernels/conv.h"

namespace hi::gpu::HI_GPU_NS {

// The offset in x of im2col row kk (input channel of `group`, kernel row, kernel column) at
// output pixel px (n, oh, ow), or -1 where the window hangs over the padding.
__device__ inline int64_t im2col_source(const Conv2dDesc& d, int64_t group, int64_t kk, int64_t px) {
  const int64_t kernel_area = d.kernel_h * d.kernel_w, out_area = d.out_h * d.out_w;
  const int64_t n = px / out_area, rem = px % out_area, oh = rem / d.out_w, ow = rem % d.out_w;
  const int64_t c = kk / kernel_area, kr = (kk % kernel_area) / d.kernel_w, kc = kk % d.kernel_w;
  const int64_t ih = oh * d.stride_h - d.pad_top + kr * d.dilation_h;
  const int64_t iw = ow * d.stride_w - d.pad_left + kc * d.dilation_w;
  if (ih < 0 || ih >= d.in_h || iw < 0 || iw >= d.in_w) return -1;
  return ((n * d.in_channels + group * (d.in_channels / d.groups) + c) * d.in_h + ih) * d.in_w + iw;
}

// y at output channel oc and pixel px = act(sum + bias + residual), rounded once.
template <typename T>
__device__ inline void conv_epilogue(const Conv2dDesc& d, float sum, const T* bias, const T* residual, T* y, int64_t oc,
                                     int64_t px) {
  const int64_t out_area = d.out_h * d.out_w;
  const int64_t at = (px / out_area * d.out_channels + oc) * out_area + px % out_area;
  if (bias) sum += load_f(bias, oc);
  if (residual) sum += load_f(residual, at);
  if (d.has_activation) sum = apply_unary(d.activation, sum);
  store_f(y, at, sum);
}

}  // namespace hi::gpu::HI_GPU_NS
