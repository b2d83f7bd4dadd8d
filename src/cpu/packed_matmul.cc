// FusedMatMul's product with its constant weights on our own packed AVX-512 product
// (cpu/packed_gemm.h): Y[rows, n] = act(A W + bias (+ Z)). The work is cut into blocks of 64
// output columns x 48 rows, column blocks outermost, shared out in order among the threads, so
// that each thread reads about its share of the weights. make_matmul_kernel times it against
// oneDNN's matmul once and keeps the faster.
#include <algorithm>

#include "cpu/avx512_util.h"
#include "cpu/packed_gemm.h"
#include "cpu/threading.h"

namespace hi::cpu {
namespace {

constexpr int64_t kBlockRows = 48, kBlockVectors = 4;

class PackedMatMulKernel final : public MatMulKernel {
 public:
  PackedMatMulKernel(int64_t rows, int64_t k, int64_t n, const float* weights, const float* bias, const Activation& act,
                     bool with_sum)
      : rows_(rows), n_(n), act_(act), with_sum_(with_sum) {
    w_.pack_columns(weights, bias, k, n);
  }

  Status run(const float* a, const float* z, float* y) const override {
    const int64_t row_blocks = (rows_ + kBlockRows - 1) / kBlockRows;
    const int64_t col_blocks = (w_.vectors + kBlockVectors - 1) / kBlockVectors;
    const int64_t k = w_.k;
    parallel_for(row_blocks * col_blocks, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t v0 = t / row_blocks * kBlockVectors, r0 = t % row_blocks * kBlockRows;
        const int64_t c0 = v0 * PackedWeights::kVector, cols = std::min(kBlockVectors * PackedWeights::kVector, n_ - c0);
        const int64_t rows = std::min(kBlockRows, rows_ - r0);
        packed_gemm(a + r0 * k, k, rows, w_.slice(v0), cols, y + r0 * n_ + c0, n_,
                    with_sum_ ? z + r0 * n_ + c0 : nullptr, n_, act_);
      }
    });
    return Status::ok();
  }

 private:
  int64_t rows_, n_;
  Activation act_;
  bool with_sum_;
  PackedWeights w_;
};

}  // namespace

std::unique_ptr<MatMulKernel> make_packed_matmul_kernel(int64_t rows, int64_t k, int64_t n, const float* weights,
                                                        const float* bias, const Activation& act, bool with_sum) {
  if (!avx512_kernels_available() || !vector_activation_supported(act) || rows <= 0 || k <= 0 || n <= 0) return nullptr;
  return std::make_unique<PackedMatMulKernel>(rows, k, n, weights, bias, act, with_sum);
}

}  // namespace hi::cpu
