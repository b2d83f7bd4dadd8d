// The tiling shared by the matrix product (matmul.cu) and the implicit-GEMM convolution
// (conv2d.cu): a block computes a 64 x 64 tile of the output with 256 threads, a 4 x 4 patch each,
// stepping through k 16 at a time with both operand tiles staged in shared memory (float32).
#pragma once

#include "backends/gpu/kernels/elementwise_util.cuh"

namespace hi::gpu::HI_GPU_NS {

constexpr int kTileM = 64, kTileN = 64, kTileK = 16, kThreads = 256, kPatch = 4;

// Shared-memory operand tiles: [k][row] and [k][column]; +1 avoids bank conflicts on the
// transposed stores.
using TileA = float[kTileK][kTileM + 1];
using TileB = float[kTileK][kTileN + 1];

// acc[p][q] += sum over the tile's k of a[k][ty * 4 + p] * b[k][tx * 4 + q]: this thread's patch
// (tx, ty in 0..15) of the staged tiles' product.
__device__ __forceinline__ void accumulate_tile(const TileA& a, const TileB& b, int tx, int ty,
                                                float (&acc)[kPatch][kPatch]) {
#pragma unroll
  for (int kk = 0; kk < kTileK; ++kk) {
    float av[kPatch], bv[kPatch];
#pragma unroll
    for (int p = 0; p < kPatch; ++p) {
      av[p] = a[kk][ty * kPatch + p];
      bv[p] = b[kk][tx * kPatch + p];
    }
#pragma unroll
    for (int p = 0; p < kPatch; ++p)
#pragma unroll
      for (int q = 0; q < kPatch; ++q) acc[p][q] += av[p] * bv[q];
  }
}

}  // namespace hi::gpu::HI_GPU_NS
