// Matrix cores on the emulated GPU: nvcuda::wmma's 16x16x16 float16 fragments (warp 32) and
// __builtin_amdgcn_mfma_f32_16x16x16f16 (wavefront 64), both as warp collectives: each lane
// holds only its own elements, the lanes exchange them through the warp's scratch between two
// warp barriers, and a lane that is missing, or that passes other arguments than its warp,
// faults the kernel with the call's name. So a kernel gets right only what the hardware would
// give it.
//
// wmma leaves the fragment layout unspecified; here element e of a tile (row-major index) is
// element e / 32 of lane e % 32, which is not NVIDIA's layout: a kernel that reads fragment
// elements by position instead of through load/store would give other results here.
//
// MFMA's layout is specified, and kernels rely on it. v_mfma_f32_16x16x16f16 on a 64-lane
// wavefront (AMD, "AMD matrix cores", the ROCm lab notes, and the AMD Matrix Instruction
// Calculator's output for this instruction on CDNA2): lane l holds A(l % 16, 4 (l / 16) + v) and
// B(4 (l / 16) + v, l % 16) for v = 0..3 as its two 4 x f16 operands, and its 4 x f32
// accumulator holds D(4 (l / 16) + v, l % 16).
#pragma once

#include <type_traits>

#include "backends/gpu/emu/api.h"

namespace hi::gpu::emu {

// Faults unless the calling thread's warp has `lanes` lanes (wmma: 32, MFMA: 64).
void require_warp_size(int lanes, const char* what);
// Faults unless every lane of the warp passed the same (pointer, ldm) to `what`: lanes publish
// theirs in the warp scratch between two barriers.
void require_uniform(const void* pointer, unsigned ldm, const char* what);

namespace nvcuda::wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

constexpr int kLanes = 32;
constexpr int kTile = 16;

template <typename Use, int M, int N, int K, typename T, typename Layout = void>
struct fragment {
  static_assert(M == kTile && N == kTile && K == kTile, "the emulated wmma has the 16x16x16 shape only");
  static constexpr int num_elements = kTile * kTile / kLanes;
  T x[num_elements];
};

// The tile position (row, column) of a lane's element i.
inline void element_position(int lane, int i, int* row, int* col) {
  const int e = lane + kLanes * i;
  *row = e / kTile;
  *col = e % kTile;
}

inline float as_float(float v) { return v; }
inline float as_float(Half v) { return half_to_float(v); }

template <typename Use, int M, int N, int K, typename T, typename L, typename V>
void fill_fragment(fragment<Use, M, N, K, T, L>& f, const V& value) {
  require_warp_size(kLanes, "wmma::fill_fragment");
  for (auto& x : f.x) x = value;
}

template <typename Use, int M, int N, int K, typename T, typename L>
void load_matrix_sync(fragment<Use, M, N, K, T, L>& f, const T* p, unsigned ldm) {
  static_assert(std::is_same_v<L, row_major> || std::is_same_v<L, col_major>, "an operand fragment names its layout");
  require_warp_size(kLanes, "wmma::load_matrix_sync");
  if (reinterpret_cast<uintptr_t>(p) % 32 != 0) kernel_fault("wmma::load_matrix_sync: pointer not 32-byte aligned");
  if (ldm % (16 / sizeof(T)) != 0) kernel_fault("wmma::load_matrix_sync: ldm not a multiple of 16 bytes");
  require_uniform(p, ldm, "wmma::load_matrix_sync");
  for (int i = 0; i < f.num_elements; ++i) {
    int r, c;
    element_position(lane_id(), i, &r, &c);
    f.x[i] = std::is_same_v<L, row_major> ? p[r * ldm + c] : p[c * ldm + r];
  }
}

template <typename T>
void store_matrix_sync(float* p, const fragment<accumulator, kTile, kTile, kTile, T>& f, unsigned ldm,
                       layout_t layout) {
  require_warp_size(kLanes, "wmma::store_matrix_sync");
  if (reinterpret_cast<uintptr_t>(p) % 32 != 0) kernel_fault("wmma::store_matrix_sync: pointer not 32-byte aligned");
  if (ldm % 4 != 0) kernel_fault("wmma::store_matrix_sync: ldm not a multiple of 16 bytes");
  require_uniform(p, ldm, "wmma::store_matrix_sync");
  for (int i = 0; i < f.num_elements; ++i) {
    int r, c;
    element_position(lane_id(), i, &r, &c);
    p[layout == mem_row_major ? r * ldm + c : c * ldm + r] = f.x[i];
  }
}

// d = a b + c: each lane publishes its elements of a, b and c, then computes its elements of d
// in float from the whole tiles.
template <typename TA, typename LA, typename TB, typename LB>
void mma_sync(fragment<accumulator, kTile, kTile, kTile, float>& d,
              const fragment<matrix_a, kTile, kTile, kTile, TA, LA>& a,
              const fragment<matrix_b, kTile, kTile, kTile, TB, LB>& b,
              const fragment<accumulator, kTile, kTile, kTile, float>& c) {
  require_warp_size(kLanes, "wmma::mma_sync");
  require_uniform(nullptr, 0, "wmma::mma_sync");
  auto* tiles = static_cast<float(*)[kTile * kTile]>(warp_scratch());  // a, b, c
  const int lane = lane_id();
  for (int i = 0; i < d.num_elements; ++i) {
    const int e = lane + kLanes * i;
    tiles[0][e] = as_float(a.x[i]);
    tiles[1][e] = as_float(b.x[i]);
    tiles[2][e] = c.x[i];
  }
  warp_barrier();
  for (int i = 0; i < d.num_elements; ++i) {
    int r, col;
    element_position(lane, i, &r, &col);
    float sum = tiles[2][r * kTile + col];
    for (int k = 0; k < kTile; ++k) sum += tiles[0][r * kTile + k] * tiles[1][k * kTile + col];
    d.x[i] = sum;
  }
  warp_barrier();  // the scratch is free again
}

}  // namespace nvcuda::wmma

typedef _Float16 mfma_f16x4 __attribute__((vector_size(8)));
typedef float mfma_f32x4 __attribute__((vector_size(16)));

// v_mfma_f32_16x16x16f16 with the lane layout above; cbsz, abid and blgp (broadcast controls)
// must be 0, the only values the kernels use.
mfma_f32x4 mfma_f32_16x16x16f16(mfma_f16x4 a, mfma_f16x4 b, mfma_f32x4 c, int cbsz, int abid, int blgp);

}  // namespace hi::gpu::emu

#define nvcuda ::hi::gpu::emu::nvcuda
#define __builtin_amdgcn_mfma_f32_16x16x16f16 ::hi::gpu::emu::mfma_f32_16x16x16f16
