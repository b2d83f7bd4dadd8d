// Without oneDNN: no fast convolution (ops use their reference kernels) and a blocked,
// OpenMP-parallel GEMM.
#include <algorithm>
#include <vector>

#include "backends/cpu/kernels/kernels.h"
#include "core/threading.h"

namespace hi::cpu {

bool fast_kernels_available() { return false; }
std::string fast_kernels_description() { return "none (built without oneDNN)"; }
bool cpu_has_bf16() { return false; }

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  parallel_for(m, 4, [&](int64_t r0, int64_t r1) {
    std::vector<float> acc(static_cast<size_t>(n));
    for (int64_t i = r0; i < r1; ++i) {
      std::fill(acc.begin(), acc.end(), 0.f);
      for (int64_t p = 0; p < k; ++p) {
        const float av = trans_a ? a[p * lda + i] : a[i * lda + p];
        for (int64_t j = 0; j < n; ++j) acc[static_cast<size_t>(j)] += av * (trans_b ? b[j * ldb + p] : b[p * ldb + j]);
      }
      for (int64_t j = 0; j < n; ++j)
        c[i * ldc + j] = alpha * acc[static_cast<size_t>(j)] + (beta == 0.f ? 0.f : beta * c[i * ldc + j]);
    }
  });
}

std::unique_ptr<ConvKernel> make_conv_kernel(const ConvGeometry&, const float*, const float*, const Activation&, bool,
                                             Precision, WeightCache*) {
  return nullptr;
}

std::unique_ptr<MatMulKernel> make_dnnl_matmul_kernel(int64_t, int64_t, int64_t, const float*, const float*,
                                                      const Activation&, bool, WeightCache*) {
  return nullptr;
}

}  // namespace hi::cpu

namespace hi::cpu {

// Our own packed product where the CPU has AVX-512 (bfloat16 where asked and the CPU has
// AVX512_BF16), else none (FusedMatMul then uses sgemm).
std::unique_ptr<MatMulKernel> make_matmul_kernel(int64_t rows, int64_t k, int64_t n, const float* weights,
                                                 const float* bias, const Activation& act, bool with_sum,
                                                 Precision precision, WeightCache* cache) {
  if (precision == Precision::kBFloat16)
    if (auto bf16 = make_packed_matmul_kernel(rows, k, n, weights, bias, act, with_sum, Precision::kBFloat16, cache))
      return bf16;
  return make_packed_matmul_kernel(rows, k, n, weights, bias, act, with_sum, Precision::kFloat32, cache);
}

}  // namespace hi::cpu
