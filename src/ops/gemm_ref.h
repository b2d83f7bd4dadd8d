// The reference matrix multiply used by MatMul, Gemm and Conv (through im2col).
#pragma once

#include <cstdint>

namespace hi::ops {

// C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C, row-major with leading dimensions.
// beta == 0 ignores C's prior contents (NaNs included). Plain loops ordered for unit-stride
// inner access; the fast CPU backend replaces this, and is checked against it.
template <typename T>
void gemm_ref(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
              int64_t ldb, T beta, T* c, int64_t ldc);

extern template void gemm_ref<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                                     int64_t, float, float*, int64_t);
extern template void gemm_ref<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, int64_t,
                                      const double*, int64_t, double, double*, int64_t);

}  // namespace hi::ops
