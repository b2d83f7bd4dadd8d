#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <optional>

#include "backends/cpu/kernels/kernels.h"
#include "core/threading.h"
#include "ops/gemm_ref.h"

namespace hi::cpu {

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  std::optional<ThreadScope> serial;
  if (m * n * k < kSerialProductWork) serial.emplace(1);
  // oneDNN's sgemm is row-major and threads with the caller's OpenMP setting. It rejects
  // degenerate leading dimensions (k == 0), which the reference handles.
  if (k > 0 && lda >= 1 && ldb >= 1 && ldc >= 1 &&
      dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) ==
          dnnl_success)
    return;
  ops::gemm_ref<float>(trans_a, trans_b, m, n, k, alpha, a, std::max<int64_t>(lda, 1), b, std::max<int64_t>(ldb, 1),
                       beta, c, ldc);
}

}  // namespace hi::cpu
