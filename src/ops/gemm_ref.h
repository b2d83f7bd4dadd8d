// The reference matrix multiply used by MatMul, Gemm and Conv (through im2col).
#pragma once

#include <cstdint>

#include "ops/op.h"

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

// An op whose float32 products go through product_f32 (Gemm, MatMul): gemm_ref<float> here; the
// CPU backend's op derived from it runs them on its sgemm (backends/cpu/ops/sgemm_product.h).
class ProductOp : public Op {
 protected:
  // C[M,N] = alpha * op(A) * op(B) + beta * C, as gemm_ref.
  virtual void product_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                           int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) const {
    gemm_ref<float>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
};

}  // namespace hi::ops
