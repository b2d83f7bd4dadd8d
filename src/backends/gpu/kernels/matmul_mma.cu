// The float16 matrix product on matrix cores (see matmul.h): the tile loop of mma_tile.cuh reads
// A(i, kk) and B(kk, j) through the same strides as the tiled kernel (both transposes, batch
// strides that may broadcast), and the epilogue applies alpha, beta and C with one rounding per
// element. Same grid as the tiled kernel: 64 x 64 tiles of Y, the batch index is blockIdx.z.
// clang-format off
#include "backends/gpu/kernels/mma_tile.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/matmul.h"
#include "backends/gpu/kernels/tile_gemm.cuh"
#include "backends/gpu/matrix_cores.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

// validate_matmul() checks the grid limits of the tiled kernel's tiles.
static_assert(kMmaTileM == kTileM && kMmaTileN == kTileN, "both matrix product kernels have one grid shape");

using Bits = unsigned short;  // a float16 as its bits: the operands are only moved, never converted

__global__ void __launch_bounds__(kMmaThreads)
    matmul_mma_kernel(const Bits* __restrict__ a, const Bits* __restrict__ b, const __half* __restrict__ c,
                      __half* __restrict__ y, MatMulDesc d) {
  __shared__ MmaShared s;
  const int64_t batch = blockIdx.z;
  const Bits* pa = a + batch * d.a_batch_stride;
  const Bits* pb = b + batch * d.b_batch_stride;
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kMmaTileM,
                col0 = static_cast<int64_t>(blockIdx.x) * kMmaTileN;
  // A(i, kk) and B(kk, j) through strides, so both transposes are the same code.
  const int64_t a_row = d.trans_a ? 1 : d.k, a_col = d.trans_a ? d.m : 1;
  const int64_t b_row = d.trans_b ? 1 : d.n, b_col = d.trans_b ? d.k : 1;
  const int64_t m = d.m, n = d.n;
  mma_tile_product(
      s, d.k, /*a_k_fast=*/!d.trans_a, /*b_k_fast=*/d.trans_b,
      [=](int i, int64_t kk) { return row0 + i < m ? pa[(row0 + i) * a_row + kk * a_col] : Bits(0); },
      [=](int64_t kk, int j) { return col0 + j < n ? pb[kk * b_row + (col0 + j) * b_col] : Bits(0); });
  __half* py = y + batch * d.y_batch_stride;
  for (int e = static_cast<int>(threadIdx.x); e < kMmaTileM * kMmaTileN; e += kMmaThreads) {
    const int i = e / kMmaTileN, j = e % kMmaTileN;  // consecutive threads, consecutive columns
    const int64_t gi = row0 + i, gj = col0 + j;
    if (gi >= m || gj >= n) continue;
    float v = d.alpha * s.c[i][j];
    if (c) v += d.beta * load_f(c, gi * d.c_row_stride + gj * d.c_col_stride);
    store_f(py, gi * n + gj, v);
  }
}

}  // namespace

Status matmul_matrix_cores(DType dtype, const MatMulDesc& d, const void* a, const void* b, const void* c, void* y,
                           Stream stream) {
  HI_RETURN_IF(dtype != DType::kFloat16, kUnsupported, "GPU MatMul on matrix cores: no kernel for ", dtype_name(dtype),
               " (float16)");
  HI_RETURN_IF_ERROR(validate_matmul(d, a, b, y));
  if (d.batch == 0 || d.m == 0 || d.n == 0) return Status::ok();
  HI_ASSIGN_OR_RETURN(const int device, current_device());
  HI_RETURN_IF(!has_f16_matrix_cores(device), kUnsupported, "GPU MatMul: device ", device,
               " has no float16 matrix cores this build uses");
  const dim3 grid(static_cast<unsigned>((d.n + kMmaTileN - 1) / kMmaTileN),
                  static_cast<unsigned>((d.m + kMmaTileM - 1) / kMmaTileM), static_cast<unsigned>(d.batch));
  launch_kernel<matmul_mma_kernel>(grid, kMmaThreads, 0, static_cast<cudaStream_t>(stream), static_cast<const Bits*>(a),
                                   static_cast<const Bits*>(b), static_cast<const __half*>(c), static_cast<__half*>(y),
                                   d);
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
