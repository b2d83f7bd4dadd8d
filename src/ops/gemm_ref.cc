// Reference GEMM: blocked over K so a panel of B stays in cache; inner loop over N vectorises.
#include "ops/gemm_ref.h"

#include <algorithm>
#include <vector>

namespace hi::ops {

template <typename T>
void gemm_ref(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
              int64_t ldb, T beta, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    T* ci = c + i * ldc;
    if (beta == T(0)) std::fill(ci, ci + n, T(0));
    else if (beta != T(1))
      for (int64_t j = 0; j < n; ++j) ci[j] *= beta;
  }
  // B transposed is copied once so the inner loop always walks B and C with unit stride.
  std::vector<T> bt;
  if (trans_b) {
    bt.resize(static_cast<size_t>(k * n));
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) bt[static_cast<size_t>(p * n + j)] = b[j * ldb + p];
    b = bt.data();
    ldb = n;
  }
  constexpr int64_t kBlockK = 256;
  for (int64_t p0 = 0; p0 < k; p0 += kBlockK) {
    const int64_t p1 = std::min(k, p0 + kBlockK);
    for (int64_t i = 0; i < m; ++i) {
      T* ci = c + i * ldc;
      for (int64_t p = p0; p < p1; ++p) {
        const T av = alpha * (trans_a ? a[p * lda + i] : a[i * lda + p]);
        const T* bp = b + p * ldb;
        for (int64_t j = 0; j < n; ++j) ci[j] += av * bp[j];
      }
    }
  }
}

template void gemm_ref<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                              int64_t, float, float*, int64_t);
template void gemm_ref<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, int64_t, const double*,
                               int64_t, double, double*, int64_t);

}  // namespace hi::ops
