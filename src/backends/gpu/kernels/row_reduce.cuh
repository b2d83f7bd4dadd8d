// Block-wide reductions for the row kernels: one block per row, threads stride over its columns,
// partial results meet in shared memory. Shared memory rather than warp shuffles: the same code
// is right at warp size 32 and 64 and needs no vendor-specific shuffle intrinsics.
#pragma once

#include "backends/gpu/kernels/elementwise_util.cuh"

namespace hi::gpu::HI_GPU_NS {

constexpr int kRowBlock = 256;  // a power of two (the tree below halves it)

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// Every thread of the block passes its partial value and gets the block's result. `scratch` holds
// kRowBlock floats; the call begins and ends with a barrier, so it can be reused right away.
template <typename Op>
__device__ float block_reduce(float v, float* scratch, Op op) {
  __syncthreads();
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int half = kRowBlock / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half)
      scratch[threadIdx.x] = op(scratch[threadIdx.x], scratch[threadIdx.x + half]);
    __syncthreads();
  }
  const float result = scratch[0];
  __syncthreads();
  return result;
}

inline unsigned row_blocks(int64_t rows) { return static_cast<unsigned>(rows); }

}  // namespace hi::gpu::HI_GPU_NS
