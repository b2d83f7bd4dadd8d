// The GPU matrix product against the CPU MatMul (batch broadcasting, odd sizes, k of 1 and of
// several hundred) and Gemm (both transposes, alpha, beta, C as a row, a column and a full
// matrix) ops, float32 and float16.
#include "backends/gpu/kernels/matmul.h"
#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

TEST(HI_GPU_TEST_SUITE, MatMulMatchesTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  // (A shape, B shape): A [batch.., m, k] with batch 1 or the full batch, B likewise.
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{1, 1}, {1, 1}}, {{3, 5, 7}, {7, 4}}, {{1, 33, 17}, {3, 17, 65}}, {{130, 257}, {257, 67}},
      {{2, 64, 64}, {2, 64, 64}}, {{5, 1}, {1, 9}}};
  uint32_t seed = 500;
  for (DType dtype : {DType::kFloat32, DType::kFloat16})
    for (const auto& [sa, sb] : cases) {
      ModelBuilder b(13);
      b.input("a", onnx_type(dtype), std::vector<int64_t>(sa.begin(), sa.end()));
      b.input("b", onnx_type(dtype), std::vector<int64_t>(sb.begin(), sb.end()));
      b.output("y", onnx_type(dtype));
      b.node("MatMul", {"a", "b"}, {"y"});
      const Tensor a = random_tensor(dtype, sa, seed++, false), bt = random_tensor(dtype, sb, seed++, false);
      const Tensor want = run_on_cpu(b, {{"a", a}, {"b", bt}});
      MatMulDesc d;
      d.m = sa[sa.size() - 2];
      d.k = sa.back();
      d.n = sb.back();
      const int64_t batch_a = sa.size() == 3 ? sa[0] : 1, batch_b = sb.size() == 3 ? sb[0] : 1;
      d.batch = std::max(batch_a, batch_b);
      d.a_batch_stride = batch_a == 1 ? 0 : d.m * d.k;
      d.b_batch_stride = batch_b == 1 ? 0 : d.k * d.n;
      d.y_batch_stride = d.m * d.n;
      const Tensor got = run_on_gpu({&a, &bt}, dtype, want.shape(), [&](const std::vector<void*>& in, void* y) {
        return matmul(dtype, d, in[0], in[1], nullptr, y, nullptr);
      });
      expect_close(want, got, std::string("MatMul ") + dtype_name(dtype) + " " + shape_to_string(sa) + " x " +
                                  shape_to_string(sb), 1e-6 * static_cast<double>(d.k));
    }
}

TEST(HI_GPU_TEST_SUITE, GemmMatchesTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  const int64_t m = 37, n = 71, k = 29;
  uint32_t seed = 600;
  for (DType dtype : {DType::kFloat32, DType::kFloat16})
    for (int trans = 0; trans < 4; ++trans)
      for (const Shape& c_shape : std::vector<Shape>{{n}, {m, 1}, {m, n}}) {
        const bool ta = trans & 1, tb = trans & 2;
        const Shape sa = ta ? Shape{k, m} : Shape{m, k}, sb = tb ? Shape{n, k} : Shape{k, n};
        ModelBuilder b(13);
        b.input("a", onnx_type(dtype), std::vector<int64_t>(sa.begin(), sa.end()));
        b.input("b", onnx_type(dtype), std::vector<int64_t>(sb.begin(), sb.end()));
        b.input("c", onnx_type(dtype), std::vector<int64_t>(c_shape.begin(), c_shape.end()));
        b.output("y", onnx_type(dtype));
        auto& node = b.node("Gemm", {"a", "b", "c"}, {"y"});
        ModelBuilder::set_int(node, "transA", ta);
        ModelBuilder::set_int(node, "transB", tb);
        ModelBuilder::set_float(node, "alpha", 0.75f);
        ModelBuilder::set_float(node, "beta", -1.5f);
        const Tensor a = random_tensor(dtype, sa, seed++, false), bt = random_tensor(dtype, sb, seed++, false);
        const Tensor c = random_tensor(dtype, c_shape, seed++, false);
        const Tensor want = run_on_cpu(b, {{"a", a}, {"b", bt}, {"c", c}});
        MatMulDesc d;
        d.m = m;
        d.n = n;
        d.k = k;
        d.trans_a = ta;
        d.trans_b = tb;
        d.alpha = 0.75f;
        d.beta = -1.5f;
        d.c_row_stride = c_shape.size() == 1 ? 0 : c_shape[1] == 1 ? 1 : n;
        d.c_col_stride = c_shape.size() == 1 ? 1 : c_shape[1] == 1 ? 0 : 1;
        const Tensor got = run_on_gpu({&a, &bt, &c}, dtype, {m, n}, [&](const std::vector<void*>& in, void* y) {
          return matmul(dtype, d, in[0], in[1], in[2], y, nullptr);
        });
        expect_close(want, got, std::string("Gemm ") + dtype_name(dtype) + " trans " + std::to_string(trans) + " C " +
                                    shape_to_string(c_shape), 1e-6 * static_cast<double>(k));
      }
}

TEST(HI_GPU_TEST_SUITE, MatMulRejectsBadArgumentsWithoutAGpu) {
  MatMulDesc d;
  d.m = -1;
  EXPECT_EQ(matmul(DType::kFloat32, d, nullptr, nullptr, nullptr, nullptr, nullptr).code(), StatusCode::kInvalidArgument);
  d.m = 0;
  EXPECT_TRUE(matmul(DType::kFloat32, d, nullptr, nullptr, nullptr, nullptr, nullptr).is_ok());
  d.m = 2;
  d.n = 2;
  d.k = 2;
  const Status s = matmul(DType::kInt32, d, reinterpret_cast<void*>(64), reinterpret_cast<void*>(64), nullptr,
                          reinterpret_cast<void*>(64), nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
