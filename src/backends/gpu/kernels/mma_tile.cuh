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

#include "backends/gpu/kernels/elementwise_util.cuh"  // vendor.h, with nvcuda::wmma where it exists

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

// Stages k step [k0, k0 + 32) of both operands: 64 x 32 elements of each, 8 per thread.
template <typename LoadA, typename LoadB>
__device__ __forceinline__ void mma_stage(MmaShared& s, int64_t k0, int64_t k, bool a_k_fast, bool b_k_fast,
                                          LoadA& load_a, LoadB& load_b) {
  for (int e = static_cast<int>(threadIdx.x); e < kMmaTileM * kMmaTileK; e += kMmaThreads) {
    const int i = a_k_fast ? e / kMmaTileK : e % kMmaTileM, ka = a_k_fast ? e % kMmaTileK : e / kMmaTileM;
    s.op.a[i][ka] = k0 + ka < k ? load_a(i, k0 + ka) : static_cast<unsigned short>(0);
    const int j = b_k_fast ? e / kMmaTileK : e % kMmaTileN, kb = b_k_fast ? e % kMmaTileK : e / kMmaTileN;
    s.op.b[kb][j] = k0 + kb < k ? load_b(k0 + kb, j) : static_cast<unsigned short>(0);
  }
}

// The units of the tile that warp (wavefront) `warp` of kLanes lanes computes: rows [row, row +
// 16) and columns [col, col + 16 kUnits).
template <int kLanes>
struct MmaWarpUnits {
  static constexpr int kUnitCols = kMmaTileN / kMmaUnit;                      // 4
  static constexpr int kWarps = kMmaThreads / kLanes;                         // 8 or 4
  static constexpr int kUnits = (kMmaTileM / kMmaUnit) * kUnitCols / kWarps;  // 2 or 4 a warp
  static_assert(kUnitCols % kUnits == 0, "a warp's units lie in one row of units");
  int row, col;
  __device__ explicit MmaWarpUnits(int warp)
      : row(warp * kUnits / kUnitCols * kMmaUnit), col(warp * kUnits % kUnitCols * kMmaUnit) {}
};

#if defined(HI_NVIDIA_WMMA_AVAILABLE)
// nvcuda::wmma fragments, one warp (32 lanes) a unit: 8 warps with 2 units each.
template <typename LoadA, typename LoadB>
__device__ __forceinline__ void mma_tile_wmma(MmaShared& s, int64_t k, bool a_k_fast, bool b_k_fast, LoadA& load_a,
                                              LoadB& load_b) {
  HI_ASSERT_WARP_SIZE(32);
  namespace wmma = nvcuda::wmma;
  using Units = MmaWarpUnits<32>;
  const Units w(static_cast<int>(threadIdx.x) / 32);
  wmma::fragment<wmma::accumulator, kMmaUnit, kMmaUnit, kMmaUnit, float> acc[Units::kUnits];
#pragma unroll
  for (int u = 0; u < Units::kUnits; ++u) wmma::fill_fragment(acc[u], 0.f);
  for (int64_t k0 = 0; k0 < k; k0 += kMmaTileK) {
    mma_stage(s, k0, k, a_k_fast, b_k_fast, load_a, load_b);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kMmaTileK; kk += kMmaUnit) {
      wmma::fragment<wmma::matrix_a, kMmaUnit, kMmaUnit, kMmaUnit, __half, wmma::row_major> fa;
      wmma::load_matrix_sync(fa, reinterpret_cast<const __half*>(&s.op.a[w.row][kk]), kMmaPitchA);
#pragma unroll
      for (int u = 0; u < Units::kUnits; ++u) {
        wmma::fragment<wmma::matrix_b, kMmaUnit, kMmaUnit, kMmaUnit, __half, wmma::row_major> fb;
        wmma::load_matrix_sync(fb, reinterpret_cast<const __half*>(&s.op.b[kk][w.col + u * kMmaUnit]), kMmaPitchB);
        wmma::mma_sync(acc[u], fa, fb, acc[u]);
      }
    }
    __syncthreads();  // the operand tiles are free again (for the next step, or for s.c)
  }
#pragma unroll
  for (int u = 0; u < Units::kUnits; ++u)
    wmma::store_matrix_sync(&s.c[w.row][w.col + u * kMmaUnit], acc[u], kMmaPitchC, wmma::mem_row_major);
}
#endif

#if defined(HI_AMD_MFMA_AVAILABLE)
// __builtin_amdgcn_mfma_f32_16x16x16f16, one wavefront (64 lanes) a unit: 4 wavefronts with 4
// units each.
template <typename LoadA, typename LoadB>
__device__ __forceinline__ void mma_tile_mfma(MmaShared& s, int64_t k, bool a_k_fast, bool b_k_fast, LoadA& load_a,
                                              LoadB& load_b) {
  HI_ASSERT_WARP_SIZE(64);
  using Units = MmaWarpUnits<64>;
  const Units w(static_cast<int>(threadIdx.x) / 64);
  // v_mfma_f32_16x16x16f16 with 64 lanes: lane l holds A(l % 16, 4 (l / 16) + 0..3) and
  // B(4 (l / 16) + 0..3, l % 16), and its result holds D(4 (l / 16) + 0..3, l % 16).
  const int lane = static_cast<int>(threadIdx.x) % 64;
  const int lane_mn = lane % kMmaUnit, lane_k = lane / kMmaUnit * 4;
  mfma_f32x4 acc[Units::kUnits];
#pragma unroll
  for (int u = 0; u < Units::kUnits; ++u) acc[u] = mfma_f32x4{0.f, 0.f, 0.f, 0.f};
  for (int64_t k0 = 0; k0 < k; k0 += kMmaTileK) {
    mma_stage(s, k0, k, a_k_fast, b_k_fast, load_a, load_b);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kMmaTileK; kk += kMmaUnit) {
      mfma_f16x4 av;
#pragma unroll
      for (int v = 0; v < 4; ++v) av[v] = __builtin_bit_cast(_Float16, s.op.a[w.row + lane_mn][kk + lane_k + v]);
#pragma unroll
      for (int u = 0; u < Units::kUnits; ++u) {
        mfma_f16x4 bv;
#pragma unroll
        for (int v = 0; v < 4; ++v)
          bv[v] = __builtin_bit_cast(_Float16, s.op.b[kk + lane_k + v][w.col + u * kMmaUnit + lane_mn]);
        acc[u] = __builtin_amdgcn_mfma_f32_16x16x16f16(av, bv, acc[u], 0, 0, 0);
      }
    }
    __syncthreads();  // the operand tiles are free again (for the next step, or for s.c)
  }
#pragma unroll
  for (int u = 0; u < Units::kUnits; ++u)
#pragma unroll
    for (int v = 0; v < 4; ++v) s.c[w.row + lane_k + v][w.col + u * kMmaUnit + lane_mn] = acc[u][v];
}
#endif

// Plain float32 loops, a 4 x 4 patch a thread: keeps every target compiling (see the top).
template <typename LoadA, typename LoadB>
__device__ __forceinline__ void mma_tile_plain(MmaShared& s, int64_t k, bool a_k_fast, bool b_k_fast, LoadA& load_a,
                                               LoadB& load_b) {
  const int tx = static_cast<int>(threadIdx.x) % 16, ty = static_cast<int>(threadIdx.x) / 16;  // 4 x 4 patches
  float acc[4][4] = {};
  for (int64_t k0 = 0; k0 < k; k0 += kMmaTileK) {
    mma_stage(s, k0, k, a_k_fast, b_k_fast, load_a, load_b);
    __syncthreads();
    for (int kq = 0; kq < kMmaTileK; ++kq) {
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
    __syncthreads();
  }
#pragma unroll
  for (int p = 0; p < 4; ++p)
#pragma unroll
    for (int q = 0; q < 4; ++q) s.c[ty * 4 + p][tx * 4 + q] = acc[p][q];
}

// s.c = A B over this block's tile, with A(i, kk) = load_a(i, kk) for rows i in [0, 64) and kk in
// [0, k), B(kk, j) = load_b(kk, j) for columns j in [0, 64). The loaders return an element's
// float16 bits, 0 for rows or columns past the matrix's edge (the loop never asks for kk >= k).
// a_k_fast / b_k_fast: consecutive threads load consecutive kk (true) or consecutive rows /
// columns (false); pass whichever is contiguous in memory. Ends with a barrier, after which
// s.c is complete for every thread. Every thread of the block must call it.
template <typename LoadA, typename LoadB>
__device__ __forceinline__ void mma_tile_product(MmaShared& s, int64_t k, bool a_k_fast, bool b_k_fast, LoadA load_a,
                                                 LoadB load_b) {
#if defined(HI_NVIDIA_WMMA_AVAILABLE) && defined(HI_AMD_MFMA_AVAILABLE)
  // Only the emulated GPU has both (vendor.h); its warp size says which it is running as.
  if (warp_size() == 64) mma_tile_mfma(s, k, a_k_fast, b_k_fast, load_a, load_b);
  else mma_tile_wmma(s, k, a_k_fast, b_k_fast, load_a, load_b);
#elif defined(HI_NVIDIA_WMMA_AVAILABLE)
  mma_tile_wmma(s, k, a_k_fast, b_k_fast, load_a, load_b);
#elif defined(HI_AMD_MFMA_AVAILABLE)
  mma_tile_mfma(s, k, a_k_fast, b_k_fast, load_a, load_b);
#else
  mma_tile_plain(s, k, a_k_fast, b_k_fast, load_a, load_b);
#endif
  __syncthreads();
}

}  // namespace hi::gpu::HI_GPU_NS
