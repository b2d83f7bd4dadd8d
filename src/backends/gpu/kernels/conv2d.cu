// 2-D convolution as an implicit GEMM, and conv2d()'s choice between this kernel and the
// matrix-core one of conv2d_mma.cu (see conv.h). Per group: Y[oc, pixel] = W[oc, kk] X'[kk,
// pixel], where kk runs over (input channel, kernel row, kernel column) and X' is the im2col
// matrix, never stored: each 16 x 64 tile of it is gathered from x straight into shared memory,
// zeros where the window hangs over the padding. Tiles of 64 output channels by 64 output pixels
// (over the whole batch), 256 threads with a 4 x 4 patch each, as in matmul.cu. The epilogue adds
// bias and residual and applies the activation before the one store.
// clang-format off
#include "backends/gpu/kernels/tile_gemm.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/conv_index.cuh"
#include "backends/gpu/matrix_cores.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename T>
__global__ void __launch_bounds__(kThreads)
    conv2d_kernel(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ bias,
                  const T* __restrict__ residual, T* __restrict__ y, Conv2dDesc d) {
  __shared__ TileA ws;
  __shared__ TileB xs;
  const int64_t group = blockIdx.z;
  const int64_t ocg = d.out_channels / d.groups;
  const int64_t K = d.in_channels / d.groups * d.kernel_h * d.kernel_w;  // im2col rows per group
  const int64_t pixels = d.batch * d.out_h * d.out_w;
  const int64_t oc0 = static_cast<int64_t>(blockIdx.y) * kTileM, px0 = static_cast<int64_t>(blockIdx.x) * kTileN;
  const T* wg = w + group * ocg * K;
  const int tx = threadIdx.x % (kTileN / kPatch), ty = threadIdx.x / (kTileN / kPatch);
  float acc[kPatch][kPatch] = {};
  for (int64_t k0 = 0; k0 < K; k0 += kTileK) {
    for (int e = threadIdx.x; e < kTileM * kTileK; e += kThreads) {
      // Weights: row oc, column kk, contiguous along kk.
      const int i = e / kTileK, kk = e % kTileK;
      const int64_t oc = oc0 + i, gk = k0 + kk;
      ws[kk][i] = (oc < ocg && gk < K) ? load_f(wg, oc * K + gk) : 0.f;
      // im2col: row kk (channel, kernel row, kernel column), column pixel (n, oh, ow).
      const int j = e % kTileN, kb = e / kTileN;
      const int64_t px = px0 + j, gkb = k0 + kb;
      const int64_t from = (px < pixels && gkb < K) ? im2col_source(d, group, gkb, px) : -1;
      xs[kb][j] = from >= 0 ? load_f(x, from) : 0.f;
    }
    __syncthreads();
    accumulate_tile(ws, xs, tx, ty, acc);
    __syncthreads();
  }
#pragma unroll
  for (int p = 0; p < kPatch; ++p) {
    const int64_t oc_in_group = oc0 + ty * kPatch + p;
    if (oc_in_group >= ocg) continue;
    const int64_t oc = group * ocg + oc_in_group;
#pragma unroll
    for (int q = 0; q < kPatch; ++q) {
      const int64_t px = px0 + tx * kPatch + q;
      if (px < pixels) conv_epilogue(d, acc[p][q], bias, residual, y, oc, px);
    }
  }
}

template <typename T>
void launch(const Conv2dDesc& d, const void* x, const void* w, const void* bias, const void* residual, void* y,
            cudaStream_t s) {
  const int64_t pixels = d.batch * d.out_h * d.out_w, ocg = d.out_channels / d.groups;
  const dim3 grid(static_cast<unsigned>((pixels + kTileN - 1) / kTileN),
                  static_cast<unsigned>((ocg + kTileM - 1) / kTileM), static_cast<unsigned>(d.groups));
  launch_kernel<conv2d_kernel<T>>(grid, kThreads, 0, s, static_cast<const T*>(x), static_cast<const T*>(w),
                                  static_cast<const T*>(bias), static_cast<const T*>(residual), static_cast<T*>(y), d);
}

}  // namespace

Status validate_conv2d(const Conv2dDesc& d, const void* x, const void* w, const void* y) {
  HI_RETURN_IF(d.batch < 0 || d.in_channels <= 0 || d.out_channels <= 0 || d.groups <= 0 || d.kernel_h <= 0 ||
                   d.kernel_w <= 0 || d.stride_h <= 0 || d.stride_w <= 0 || d.dilation_h <= 0 || d.dilation_w <= 0 ||
                   d.in_h < 0 || d.in_w < 0 || d.out_h < 0 || d.out_w < 0,
               kInvalidArgument, "GPU Conv: invalid geometry (batch ", d.batch, ", channels ", d.in_channels, " -> ",
               d.out_channels, ", groups ", d.groups, ", kernel ", d.kernel_h, "x", d.kernel_w, ", strides ",
               d.stride_h, "x", d.stride_w, ", dilations ", d.dilation_h, "x", d.dilation_w, ")");
  HI_RETURN_IF(d.in_channels % d.groups != 0 || d.out_channels % d.groups != 0, kInvalidArgument,
               "GPU Conv: ", d.in_channels, " input and ", d.out_channels, " output channels do not divide into ",
               d.groups, " groups");
  const int64_t pixels = d.batch * d.out_h * d.out_w;
  if (pixels == 0) return Status::ok();
  // Both kernels tile by 64 output channels x 64 pixels, a group per blockIdx.z (conv2d_mma.cu
  // asserts it).
  HI_RETURN_IF(d.groups > 65535 || (d.out_channels / d.groups + kTileM - 1) / kTileM > 65535 ||
                   (pixels + kTileN - 1) / kTileN > 0x7fffffff,
               kUnsupported, "GPU Conv: ", d.groups, " groups of ", d.out_channels / d.groups, " channels over ",
               pixels, " output pixels is above the grid limits");
  HI_RETURN_IF(x == nullptr || w == nullptr || y == nullptr, kInvalidArgument, "GPU Conv: null buffer");
  return Status::ok();
}

Status conv2d_tiled(DType dtype, const Conv2dDesc& d, const void* x, const void* w, const void* bias,
                    const void* residual, void* y, Stream stream) {
  HI_RETURN_IF_ERROR(validate_conv2d(d, x, w, y));
  if (d.batch * d.out_h * d.out_w == 0) return Status::ok();
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == DType::kFloat32) launch<float>(d, x, w, bias, residual, y, s);
  else if (dtype == DType::kFloat16) launch<__half>(d, x, w, bias, residual, y, s);
  else return error(StatusCode::kUnsupported, "GPU Conv: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

Status conv2d(DType dtype, const Conv2dDesc& d, const void* x, const void* w, const void* bias, const void* residual,
              void* y, Stream stream) {
  // float16 goes to the matrix cores where the current device has them; float32 stays on the
  // tiled kernel (no TF32).
  if (dtype == DType::kFloat16) {
    HI_RETURN_IF_ERROR(validate_conv2d(d, x, w, y));
    if (d.batch * d.out_h * d.out_w == 0) return Status::ok();
    const Result<int> device = current_device();
    if (device.is_ok() && has_f16_matrix_cores(device.value()))
      return conv2d_matrix_cores(dtype, d, x, w, bias, residual, y, stream);
  }
  return conv2d_tiled(dtype, d, x, w, bias, residual, y, stream);
}

}  // namespace hi::gpu::HI_GPU_NS
