// The bfloat16 form of the packed product (backends/cpu/kernels/packed_gemm.h) for --precision bf16: A and W
// rounded to bfloat16, products summed in float32 by AVX512_BF16's dot product (vdpbf16ps, two k
// at a time: twice the float32 FMA's rate), C and the epilogue in float32. W is stored as vectors
// of 16 output columns holding k in pairs, [n / 16][k / 2][16][2]; A as rows of bfloat16 with
// an even row length, so one 32-bit broadcast carries a row's pair of k.
// Call only where bf16_kernels_available().
#pragma once

#include <cstdint>
#include <vector>

#include "backends/cpu/kernels/aligned.h"
#include "backends/cpu/kernels/kernels.h"

namespace hi::cpu {

// True when the CPU runs the own AVX512_BF16 kernels.
bool bf16_kernels_available();

// Float32 to bfloat16, rounding to nearest even (NaN stays NaN), as the hardware conversion does.
uint16_t to_bf16(float x);
float from_bf16(uint16_t x);

struct WeightSliceBf16 {
  const uint16_t* w;
  int64_t w_stride, k;  // bfloat16 values from one output vector's panel to the next; k (even)
  const float* bias;    // 16 floats per vector
};

struct PackedWeightsBf16 {
  AlignedVector<uint16_t> w;  // [vectors][k / 2][16][2]; zeros past n and the real k
  AlignedVector<float> bias;  // [vectors * 16]
  int64_t k = 0, vectors = 0;
  // From any strided [k_real, n] view, element (i, j) at src[i * k_stride + j * n_stride]; k
  // padded to an even count; bias may be null (zeros).
  void pack(const float* src, int64_t k_real, int64_t n, int64_t k_stride, int64_t n_stride, const float* bias);
  WeightSliceBf16 slice(int64_t v0) const {
    return {w.data() + v0 * k * kVector, k * kVector, k, bias.data() + v0 * kVector};
  }
  static constexpr int64_t kVector = 16;
};

// Rows of float32 [rows, cols] (lds floats apart) as bfloat16 rows ldd values apart, zeros from
// cols up to ldd.
void convert_rows_to_bf16(const float* src, int64_t lds, int64_t rows, int64_t cols, uint16_t* dst, int64_t ldd);

// C[m, n] = act(A[m, k] W + bias (+ Z[m, n])) for the first n output columns of the slice; A in
// bfloat16 rows lda values apart (lda even); C and Z float32. act: as vector_activation_supported.
void packed_gemm_bf16(const uint16_t* a, int64_t lda, int64_t m, const WeightSliceBf16& w, int64_t n, float* c,
                      int64_t ldc, const float* z, int64_t ldz, const Activation& act);

}  // namespace hi::cpu
