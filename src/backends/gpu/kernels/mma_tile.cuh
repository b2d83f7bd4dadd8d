// The matrix-core tile loop shared by the float16 matrix product (matmul_mma.cu) and convolution
// (conv2d_mma.cu): a block of 256 threads computes a 64 x 64 tile of the output with float32
// accumulation, stepping through k 32 at a time. Both operand tiles are staged in shared memory
// as raw float16 bits (A as [row][k], B as [k][column]) through the caller's bounds-checked
// loaders, so any extents and strides work without padding. The tile's product is then computed
// in 16 x 16 x 16 units by whatever this device pass has (capability macros of vendor.h):
//   HI_NVIDIA_WMMA_AVAILABLE  nvcuda::wmma fragments, one warp (32 lanes) a unit: 8 warps with
//                             2 units each
//   HI_AMD_MFMA_AVAILABLE     __builtin_amdgcn_mfma_f32_16x16x16f16, one wavefront (64 lanes) a
//                             unit: 4 wavefronts with 4 units each
//   neither                   plain float32 loops, a 4 x 4 patch a thread. The host launches
//                             these kernels only where matrix_cores.h says the device has matrix
//                             cores; this path keeps every target compiling, and would make a
//                             wrong host decision slow rather than wrong.
// The result is left in shared memory, float32 [row][column], for the caller's epilogue, so no
// epilogue needs to know a fragment layout.
#pragma once

#include "backends/gpu/kernels/elementwise_util.cuh"

#if defined(HI_NVIDIA_WMMA_AVAILABLE)
#include <mma.h>
#endif

namespace hi::gpu::HI_GPU_NS {

constexpr int kMmaTileM = 64, kMmaTileN = 64, kMmaTileK = 32, kMmaThreads = 256;
constexpr int kMmaUnit = 16;  // the side of one matrix-core product (16 x 16 x 16)

// Row pitches in elements: multiples of 8 halves (16 bytes) as wmma wants, which keeps every
// unit's first element 32-byte aligned; the padding spreads a column over the memory banks.
constexpr int kMmaPitchA = kMmaTileK + 8, kMmaPitchB = kMmaTileN + 8, kMmaPitchC = kMmaTileN + 4;

// The operand tiles and, once the k loop is done, the float32 result in the same memory.
union alignas(32) MmaShared {
  struct {
    unsigned short a[kMmaTileM][kMmaPitchA];  // A(row, k) as float16 bits
    unsigned short b[kMmaTileK][kMmaPitchB];  // B(k, column)
  } op;
  float c[kMmaTileM][kMmaPitchC];  // the tile's A B
};

// s.c = A B over this block's tile, with A(i, kk) = load_a(i, kk) for rows i in [0, 64) and kk in
// [0, k), B(kk, j) = load_b(kk, j) for columns j in [0, 64). The loaders return an element's
// float16 bits, 0 for rows or columns past the matrix's edge (the loop never asks for kk >= k).
// a_k_fast / b_k_fast: consecutive threads load consecutive kk (true) or consecutive rows /
// columns (false); pass whichever is contiguous in memory. Ends with a barrier, after which
// s.c is complete for every thread. Every thread of the block must call it.
template <typename LoadA, typename LoadB>
__device__ __forceinline__ void mma_tile_product(MmaShared& s, int64_t k, bool a_k_fast, bool b_k_fast, LoadA load_a,
                                                 LoadB load_b) {
#if defined(HI_F16_MATRIX_LANES)
  static_assert(HI_F16_MATRIX_LANES == warp_size(), "one warp (wavefront) computes a matrix-core unit");
  constexpr int kUnitCols = kMmaTileN / kMmaUnit;                                  // 4
  constexpr int kWarps = kMmaThreads / HI_F16_MATRIX_LANES;                        // 8 or 4
  constexpr int kUnits = (kMmaTileM / kMmaUnit) * kUnitCols / kWarps;              // 2 or 4 a warp
  static_assert(kUnitCols % kUnits == 0, "a warp's units lie in one row of units");
  const int warp = static_cast<int>(threadIdx.x) / HI_F16_MATRIX_LANES;
  const int row = warp * kUnits / kUnitCols * kMmaUnit;  // the warp computes rows [row, row + 16)
  const int col = warp * kUnits % kUnitCols * kMmaUnit;  // and columns [col, col + 16 kUnits)
#endif
#if defined(HI_NVIDIA_WMMA_AVAILABLE)
  namespace wmma = nvcuda::wmma;
  wmma::fragment<wmma::accumulator, kMmaUnit, kMmaUnit, kMmaUnit, float> acc[kUnits];
#pragma unroll
  for (int u = 0; u < kUnits; ++u) wmma::fill_fragment(acc[u], 0.f);
#elif defined(HI_AMD_MFMA_AVAILABLE)
  using f16x4 = _Float16 __attribute__((ext_vector_type(4)));
  using f32x4 = float __attribute__((ext_vector_type(4)));
  // v_mfma_f32_16x16x16f16 with 64 lanes: lane l holds A(l % 16, 4 (l / 16) + 0..3) and
  // B(4 (l / 16) + 0..3, l % 16), and its result holds D(4 (l / 16) + 0..3, l % 16).
  const int lane = static_cast<int>(threadIdx.x) % HI_F16_MATRIX_LANES;
  const int lane_mn = lane % kMmaUnit, lane_k = lane / kMmaUnit * 4;
  f32x4 acc[kUnits];
#pragma unroll
  for (int u = 0; u < kUnits; ++u) acc[u] = f32x4{0.f, 0.f, 0.f, 0.f};
#else
  const int tx = static_cast<int>(threadIdx.x) % 16, ty = static_cast<int>(threadIdx.x) / 16;  // 4 x 4 patches
  float acc[4][4] = {};
#endif
  for (int64_t k0 = 0; k0 < k; k0 += kMmaTileK) {
    // 64 x 32 elements of each operand, 8 per thread.
    for (int e = static_cast<int>(threadIdx.x); e < kMmaTileM * kMmaTileK; e += kMmaThreads) {
      const int i = a_k_fast ? e / kMmaTileK : e % kMmaTileM, ka = a_k_fast ? e % kMmaTileK : e / kMmaTileM;
      s.op.a[i][ka] = k0 + ka < k ? load_a(i, k0 + ka) : static_cast<unsigned short>(0);
      const int j = b_k_fast ? e / kMmaTileK : e % kMmaTileN, kb = b_k_fast ? e % kMmaTileK : e / kMmaTileN;
      s.op.b[kb][j] = k0 + kb < k ? load_b(k0 + kb, j) : static_cast<unsigned short>(0);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kMmaTileK; kk += kMmaUnit) {
#if defined(HI_NVIDIA_WMMA_AVAILABLE)
      wmma::fragment<wmma::matrix_a, kMmaUnit, kMmaUnit, kMmaUnit, __half, wmma::row_major> fa;
      wmma::load_matrix_sync(fa, reinterpret_cast<const __half*>(&s.op.a[row][kk]), kMmaPitchA);
#pragma unroll
      for (int u = 0; u < kUnits; ++u) {
        wmma::fragment<wmma::matrix_b, kMmaUnit, kMmaUnit, kMmaUnit, __half, wmma::row_major> fb;
        wmma::load_matrix_sync(fb, reinterpret_cast<const __half*>(&s.op.b[kk][col + u * kMmaUnit]), kMmaPitchB);
        wmma::mma_sync(acc[u], fa, fb, acc[u]);
      }
#elif defined(HI_AMD_MFMA_AVAILABLE)
      f16x4 av;
#pragma unroll
      for (int v = 0; v < 4; ++v) av[v] = __builtin_bit_cast(_Float16, s.op.a[row + lane_mn][kk + lane_k + v]);
#pragma unroll
      for (int u = 0; u < kUnits; ++u) {
        f16x4 bv;
#pragma unroll
        for (int v = 0; v < 4; ++v)
          bv[v] = __builtin_bit_cast(_Float16, s.op.b[kk + lane_k + v][col + u * kMmaUnit + lane_mn]);
        acc[u] = __builtin_amdgcn_mfma_f32_16x16x16f16(av, bv, acc[u], 0, 0, 0);
      }
#else
#pragma unroll
      for (int kq = kk; kq < kk + kMmaUnit; ++kq) {
        float av[4], bv[4];
#pragma unroll
        for (int p = 0; p < 4; ++p) {
          av[p] = __half2float(__ushort_as_half(s.op.a[ty * 4 + p][kq]));
          bv[p] = __half2float(__ushort_as_half(s.op.b[kq][tx * 4 + p]));
        }
#pragma unroll
        for (int p = 0; p < 4; ++p)
#pragma unroll
          for (int q = 0; q < 4; ++q) acc[p][q] += av[p] * bv[q];
      }
#endif
    }
    __syncthreads();  // the operand tiles are free again (for the next step, or for s.c)
  }
#if defined(HI_NVIDIA_WMMA_AVAILABLE)
#pragma unroll
  for (int u = 0; u < kUnits; ++u)
    wmma::store_matrix_sync(&s.c[row][col + u * kMmaUnit], acc[u], kMmaPitchC, wmma::mem_row_major);
#elif defined(HI_AMD_MFMA_AVAILABLE)
#pragma unroll
  for (int u = 0; u < kUnits; ++u)
#pragma unroll
    for (int v = 0; v < 4; ++v) s.c[row + lane_k + v][col + u * kMmaUnit + lane_mn] = acc[u][v];
#else
#pragma unroll
  for (int p = 0; p < 4; ++p)
#pragma unroll
    for (int q = 0; q < 4; ++q) s.c[ty * 4 + p][tx * 4 + q] = acc[p][q];
#endif
  __syncthreads();
}

}  // namespace hi::gpu::HI_GPU_NS
