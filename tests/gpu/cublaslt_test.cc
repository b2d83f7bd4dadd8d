// cuBLASLt (CUDA backend only) against the own kernels (matmul()), which matmul_test.cc checks against
// the CPU: the same descriptors through both paths on the device.
#include <cmath>

#include "backends/gpu/cuda_libs/cublaslt.h"
#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

TEST(HI_GPU_TEST_SUITE, CublasLtLoadsOrSaysWhyNot) {
  const VendorLibrary& lib = cublaslt_library();
  if (lib.available) EXPECT_EQ(lib.version.rfind("cuBLASLt ", 0), 0u) << lib.version;
  else EXPECT_FALSE(lib.reason.empty());
  // Broadcasts cuBLASLt has no layout for go back to the caller as kUnsupported.
  MatMulDesc d;
  d.m = d.n = d.k = 2;
  d.c_row_stride = 1;
  d.c_col_stride = 0;
  const Status s = cublaslt_matmul(DType::kFloat32, d, reinterpret_cast<void*>(64), reinterpret_cast<void*>(64),
                                   reinterpret_cast<void*>(64), reinterpret_cast<void*>(64), nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.to_string();
}

TEST(HI_GPU_TEST_SUITE, CublasLtMatchesTheOwnKernel) {
  SKIP_WITHOUT_GPU();
  if (!cublaslt_library().available) GTEST_SKIP() << "cuBLASLt: " << cublaslt_library().reason;
  ASSERT_TRUE(set_device(0).is_ok());
  struct Case {
    int64_t batch, m, n, k;
    bool ta, tb, broadcast_b, bias;
  };
  const std::vector<Case> cases = {{1, 1, 1, 1, false, false, false, false},
                                   {1, 37, 71, 29, true, false, false, true},
                                   {3, 33, 65, 17, false, true, true, false},
                                   {4, 128, 256, 64, false, false, false, true},
                                   {1, 130, 67, 257, true, true, false, false}};
  uint32_t seed = 1000;
  for (DType dtype : {DType::kFloat32, DType::kFloat16})
    for (const Case& c : cases) {
      MatMulDesc d;
      d.batch = c.batch;
      d.m = c.m;
      d.n = c.n;
      d.k = c.k;
      d.trans_a = c.ta;
      d.trans_b = c.tb;
      d.a_batch_stride = c.m * c.k;
      d.b_batch_stride = c.broadcast_b ? 0 : c.k * c.n;
      d.y_batch_stride = c.m * c.n;
      if (c.bias) {
        d.beta = 1.f;
        d.c_row_stride = 0;
        d.c_col_stride = 1;
      }
      const Tensor a = random_tensor(dtype, {c.batch * c.m * c.k}, seed++, false);
      const Tensor b = random_tensor(dtype, {(c.broadcast_b ? 1 : c.batch) * c.k * c.n}, seed++, false);
      const Tensor bias = random_tensor(dtype, {c.n}, seed++, false);
      const Shape out = {c.batch * c.m * c.n};
      const void* none = nullptr;
      const Tensor own = run_on_gpu({&a, &b, &bias}, dtype, out, [&](const std::vector<void*>& in, void* y) {
        return matmul(dtype, d, in[0], in[1], c.bias ? in[2] : none, y, nullptr);
      });
      const Tensor lt = run_on_gpu({&a, &b, &bias}, dtype, out, [&](const std::vector<void*>& in, void* y) {
        return cublaslt_matmul(dtype, d, in[0], in[1], c.bias ? in[2] : none, y, nullptr);
      });
      const std::string what = std::string("cuBLASLt ") + dtype_name(dtype) + " " + std::to_string(c.m) + "x" +
                               std::to_string(c.n) + "x" + std::to_string(c.k);
      if (dtype == DType::kFloat32) {
        expect_close(own, lt, what, 1e-6 * static_cast<double>(c.k));
        continue;
      }
      // float16: matmul() runs on matrix cores where the device has them, which sum in another
      // order than cuBLASLt: the tolerance of sums (kernel_harness.h) over each element's
      // products' magnitudes.
      std::vector<double> abs(static_cast<size_t>(c.batch * c.m * c.n), 0.0);
      for (int64_t bi = 0; bi < c.batch; ++bi)
        for (int64_t i = 0; i < c.m; ++i)
          for (int64_t j = 0; j < c.n; ++j) {
            double sum = 0;
            for (int64_t kk = 0; kk < c.k; ++kk) {
              const int64_t ai = bi * d.a_batch_stride + (c.ta ? kk * c.m + i : i * c.k + kk);
              const int64_t bj = bi * d.b_batch_stride + (c.tb ? j * c.k + kk : kk * c.n + j);
              sum += std::fabs(a.as_double(ai) * b.as_double(bj));
            }
            abs[static_cast<size_t>((bi * c.m + i) * c.n + j)] = sum;
          }
      expect_close_f16_sums(own, lt, abs, 1.0, c.k, what);
    }
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
