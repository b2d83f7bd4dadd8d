// C = act(A W + bias (+ Z)) with W packed once: the register-tiled AVX-512 product behind the own
// CPU kernels (the inverted residual block's 1x1 convolutions, FusedMatMul). W is stored as
// vectors of 16 output columns, [n / 16][k][16], so a tile of up to 12 rows x 4 vectors keeps its
// accumulators in registers and reads each weight vector once per k for all its rows.
// Call only where avx512_kernels_available() (cpu/avx512_util.h).
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/kernels.h"

namespace hi::cpu {

// Output vectors [v0, ...) of packed weights, over all their k rows.
struct WeightSlice {
  const float* w;
  int64_t w_stride, k;  // floats from one output vector's panel to the next; rows
  const float* bias;    // 16 floats per vector
};

struct PackedWeights {
  std::vector<float> w, bias;  // [vectors][k][16], [vectors * 16]; zeros past n and the real k
  int64_t k = 0, vectors = 0;
  // From weights [n][k_real] (an ONNX 1x1 convolution's [O, I, 1, 1]), k padded to k_padded rows.
  void pack_rows(const float* weights, const float* bias, int64_t n, int64_t k_real, int64_t k_padded);
  // From weights [k][n] (a MatMul's B).
  void pack_columns(const float* weights, const float* bias, int64_t k, int64_t n);
  // From any strided [k_real, n] view, element (i, j) at src[i * k_stride + j * n_stride], times
  // scale; k padded to k_padded rows; bias may be null (zeros). Reuses the storage it has.
  void pack(const float* src, int64_t k_real, int64_t k_padded, int64_t n, int64_t k_stride, int64_t n_stride, float scale,
            const float* bias);
  WeightSlice slice(int64_t v0) const { return {w.data() + v0 * k * kVector, k * kVector, k, bias.data() + v0 * kVector}; }
  static constexpr int64_t kVector = 16;  // output columns per packed vector
};

// C[m, n] = act(A[m, k] W + bias (+ Z[m, n])) for the first n output columns of the slice; rows
// of A, C and Z lda, ldc and ldz floats apart. act: none, Relu or Clip. One thread.
void packed_gemm(const float* a, int64_t lda, int64_t m, const WeightSlice& w, int64_t n, float* c, int64_t ldc,
                 const float* z, int64_t ldz, const Activation& act);

}  // namespace hi::cpu
