// A ProductOp (Gemm, MatMul) with its float32 products on the CPU's multithreaded sgemm (oneDNN's
// where built in) instead of the reference loops.
#pragma once

#include "backends/cpu/kernels/kernels.h"
#include "ops/gemm_ref.h"

namespace hi::cpu {

template <class Op>
class SgemmProduct : public Op {
 protected:
  void product_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                   int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) const override {
    sgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
};

}  // namespace hi::cpu
