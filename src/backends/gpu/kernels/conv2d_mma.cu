// 2-D convolution in float16 on matrix cores (see conv.h): the implicit GEMM of conv2d.cu, Y[oc,
// pixel] = W[oc, kk] X'[kk, pixel] per group, through the tile loop of mma_tile.cuh. Its loaders
// read the weights (contiguous along kk) and gather the im2col matrix X' from x (zeros where the
// window hangs over the padding); the epilogue adds bias and residual and applies the activation
// before the one store. Same grid as the tiled kernel: 64 output channels by 64 output pixels
// (over the whole batch), a group per blockIdx.z.
// clang-format off
#include "backends/gpu/kernels/mma_tile.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/conv_index.cuh"
#include "backends/gpu/kernels/tile_gemm.cuh"
#include "backends/gpu/matrix_cores.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

// validate_conv2d() checks the grid limits of the tiled kernel's tiles.
static_assert(kMmaTileM == kTileM && kMmaTileN == kTileN, "both convolution kernels have one grid shape");

using Bits = unsigned short;  // a float16 as its bits: the operands are only moved, never converted

__global__ void __launch_bounds__(kMmaThreads)
    conv2d_mma_kernel(const Bits* __restrict__ x, const Bits* __restrict__ w, const __half* __restrict__ bias,
                      const __half* __restrict__ residual, __half* __restrict__ y, Conv2dDesc d) {
  __shared__ MmaShared s;
  const int64_t group = blockIdx.z;
  const int64_t ocg = d.out_channels / d.groups;
  const int64_t K = d.in_channels / d.groups * d.kernel_h * d.kernel_w;  // im2col rows per group
  const int64_t pixels = d.batch * d.out_h * d.out_w;
  const int64_t oc0 = static_cast<int64_t>(blockIdx.y) * kMmaTileM, px0 = static_cast<int64_t>(blockIdx.x) * kMmaTileN;
  const Bits* wg = w + group * ocg * K;
  mma_tile_product(
      s, K, /*a_k_fast=*/true, /*b_k_fast=*/false,
      // Weights: row oc, column kk, contiguous along kk.
      [&](int i, int64_t kk) { return oc0 + i < ocg ? wg[(oc0 + i) * K + kk] : Bits(0); },
      // im2col: row kk (channel, kernel row, kernel column), column pixel (n, oh, ow).
      [&](int64_t kk, int j) {
        const int64_t px = px0 + j;
        const int64_t from = px < pixels ? im2col_source(d, group, kk, px) : -1;
        return from >= 0 ? x[from] : Bits(0);
      });
  for (int e = static_cast<int>(threadIdx.x); e < kMmaTileM * kMmaTileN; e += kMmaThreads) {
    const int i = e / kMmaTileN, j = e % kMmaTileN;  // consecutive threads, consecutive pixels
    const int64_t oc_in_group = oc0 + i, px = px0 + j;
    if (oc_in_group >= ocg || px >= pixels) continue;
    conv_epilogue(d, s.c[i][j], bias, residual, y, group * ocg + oc_in_group, px);
  }
}

}  // namespace

Status conv2d_matrix_cores(DType dtype, const Conv2dDesc& d, const void* x, const void* w, const void* bias,
                           const void* residual, void* y, Stream stream) {
  HI_RETURN_IF(dtype != DType::kFloat16, kUnsupported, "GPU Conv on matrix cores: no kernel for ", dtype_name(dtype),
               " (float16)");
  HI_RETURN_IF_ERROR(validate_conv2d(d, x, w, y));
  const int64_t pixels = d.batch * d.out_h * d.out_w, ocg = d.out_channels / d.groups;
  if (pixels == 0) return Status::ok();
  HI_ASSIGN_OR_RETURN(const int device, current_device());
  HI_RETURN_IF(!has_f16_matrix_cores(device), kUnsupported, "GPU Conv: device ", device,
               " has no float16 matrix cores this build uses");
  const dim3 grid(static_cast<unsigned>((pixels + kMmaTileN - 1) / kMmaTileN),
                  static_cast<unsigned>((ocg + kMmaTileM - 1) / kMmaTileM), static_cast<unsigned>(d.groups));
  launch_kernel<conv2d_mma_kernel>(grid, kMmaThreads, 0, static_cast<cudaStream_t>(stream), static_cast<const Bits*>(x),
                                   static_cast<const Bits*>(w), static_cast<const __half*>(bias),
                                   static_cast<const __half*>(residual), static_cast<__half*>(y), d);
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
