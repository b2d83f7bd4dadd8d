// Shared by the elementwise kernels: float32 / float16 loads and stores (compute is always in
// float32), typed loads, broadcast offsets, the 1-D launch shape, and the word type that lets
// data movement kernels handle every dtype by its size.
#pragma once

#include <algorithm>
#include <cstdint>

#include <type_traits>

#include "backends/gpu/common.cuh"
#include "backends/gpu/kernels/elementwise.h"

namespace hi::gpu::HI_GPU_NS {

// Calls f(Word{}) with the unsigned integer type of elem_size bytes (1, 2, 4 or 8): kernels that
// only move elements serve every dtype through it. False for other sizes.
template <typename F>
bool with_word(int elem_size, F&& f) {
  switch (elem_size) {
    case 1: f(uint8_t{}); return true;
    case 2: f(uint16_t{}); return true;
    case 4: f(uint32_t{}); return true;
    case 8: f(uint64_t{}); return true;
    default: return false;
  }
}

__device__ __forceinline__ float load_f(const float* p, int64_t i) { return p[i]; }
__device__ __forceinline__ float load_f(const __half* p, int64_t i) { return __half2float(p[i]); }
__device__ __forceinline__ void store_f(float* p, int64_t i, float v) { p[i] = v; }
__device__ __forceinline__ void store_f(__half* p, int64_t i, float v) { p[i] = __float2half_rn(v); }

// Element i of any type, float16 widened to float32 (exact), others as they are: for kernels that
// compare values (comparisons, ArgMax) rather than compute with them.
template <typename T>
__device__ __forceinline__ auto load_value(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(p[i]);
  else return p[i];
}

// The offsets into a and b of output element i under numpy broadcasting (the output index
// decomposed over the output's dims, innermost first).
__device__ __forceinline__ void broadcast_offsets(const BroadcastIndex& index, int64_t i, int64_t* ai, int64_t* bi) {
  if (index.same_shape) {
    *ai = *bi = i;
    return;
  }
  int64_t a = 0, b = 0, rest = i;
  for (int d = index.rank - 1; d >= 0; --d) {
    const int64_t coord = rest % index.dims[d];
    rest /= index.dims[d];
    a += coord * index.a_strides[d];
    b += coord * index.b_strides[d];
  }
  *ai = a;
  *bi = b;
}

// A grid-stride loop of 256-thread blocks (whole warps at warp size 32 and 64), the grid capped
// so any element count fits in gridDim.x.
constexpr int kElementwiseBlock = 256;
inline unsigned elementwise_blocks(int64_t n) {
  return static_cast<unsigned>(
      std::max<int64_t>(1, std::min<int64_t>((n + kElementwiseBlock - 1) / kElementwiseBlock, 65535)));
}

}  // namespace hi::gpu::HI_GPU_NS
