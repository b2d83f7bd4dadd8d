// The GPU matrix product against the CPU MatMul (batch broadcasting, odd sizes, k of 1 and of
// several hundred) and Gemm (both transposes, alpha, beta, C as a row, a column and a full
// matrix) ops, float32 and float16; the float16 matrix-core kernel against the tiled kernel and
// the CPU on awkward sizes; and the architecture -> matrix-core decision (no GPU needed).
#include <cmath>
#include <cstring>

#include "backends/gpu/kernels/matmul.h"
#include "backends/gpu/kernels/probe.h"
#include "backends/gpu/matrix_cores.h"
#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

// sum over kk of |A(i, kk)| |B(kk, j)| for every output element [batch][i][j], read through the
// descriptor's strides as the kernels read them.
std::vector<double> abs_products(const Tensor& a, const Tensor& b, const MatMulDesc& d) {
  std::vector<double> av(static_cast<size_t>(a.numel())), bv(static_cast<size_t>(b.numel()));
  for (int64_t i = 0; i < a.numel(); ++i) av[static_cast<size_t>(i)] = std::fabs(a.as_double(i));
  for (int64_t i = 0; i < b.numel(); ++i) bv[static_cast<size_t>(i)] = std::fabs(b.as_double(i));
  const int64_t a_row = d.trans_a ? 1 : d.k, a_col = d.trans_a ? d.m : 1;
  const int64_t b_row = d.trans_b ? 1 : d.n, b_col = d.trans_b ? d.k : 1;
  std::vector<double> out(static_cast<size_t>(d.batch * d.m * d.n), 0.0);
  for (int64_t t = 0; t < d.batch; ++t)
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t kk = 0; kk < d.k; ++kk) {
        const double x = av[static_cast<size_t>(t * d.a_batch_stride + i * a_row + kk * a_col)];
        double* row = &out[static_cast<size_t>((t * d.m + i) * d.n)];
        for (int64_t j = 0; j < d.n; ++j)
          row[j] += x * bv[static_cast<size_t>(t * d.b_batch_stride + kk * b_row + j * b_col)];
      }
  return out;
}

// float32 as expect_close; float16 with the accumulation allowance of expect_close_f16_sums.
void expect_close_product(const Tensor& want, const Tensor& got, const Tensor& a, const Tensor& b, const MatMulDesc& d,
                          const std::string& what) {
  if (want.dtype() == DType::kFloat16) expect_close_f16_sums(want, got, abs_products(a, b, d), d.alpha, d.k, what);
  else expect_close(want, got, what, 1e-6 * static_cast<double>(d.k));
}

TEST(HI_GPU_TEST_SUITE, MatMulMatchesTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  // (A shape, B shape): A [batch.., m, k] with batch 1 or the full batch, B likewise.
  const std::vector<std::pair<Shape, Shape>> cases = {{{1, 1}, {1, 1}},           {{3, 5, 7}, {7, 4}},
                                                      {{1, 33, 17}, {3, 17, 65}}, {{130, 257}, {257, 67}},
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
      expect_close_product(
          want, got, a, bt, d,
          std::string("MatMul ") + dtype_name(dtype) + " " + shape_to_string(sa) + " x " + shape_to_string(sb));
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
        expect_close_product(want, got, a, bt, d,
                             std::string("Gemm ") + dtype_name(dtype) + " trans " + std::to_string(trans) + " C " +
                                 shape_to_string(c_shape));
      }
}

TEST(HI_GPU_TEST_SUITE, MatMulRejectsBadArgumentsWithoutAGpu) {
  MatMulDesc d;
  d.m = -1;
  EXPECT_EQ(matmul(DType::kFloat32, d, nullptr, nullptr, nullptr, nullptr, nullptr).code(),
            StatusCode::kInvalidArgument);
  d.m = 0;
  EXPECT_TRUE(matmul(DType::kFloat32, d, nullptr, nullptr, nullptr, nullptr, nullptr).is_ok());
  d.m = 2;
  d.n = 2;
  d.k = 2;
  const Status s = matmul(DType::kInt32, d, reinterpret_cast<void*>(64), reinterpret_cast<void*>(64), nullptr,
                          reinterpret_cast<void*>(64), nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
}

TEST(HI_GPU_TEST_SUITE, MatrixCoresByArchitectureWithoutAGpu) {
  // NVIDIA: tensor cores from Volta (sm_70) on, a warp of 32 a tile.
  for (const char* arch : {"sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"}) {
    EXPECT_EQ(f16_matrix_lanes(arch), 32) << arch;
    EXPECT_TRUE(arch_has_f16_matrix_cores(arch)) << arch;
  }
  // AMD CDNA: MFMA, a wavefront of 64 a tile; the runtime's target suffix does not matter.
  for (const char* arch : {"gfx908", "gfx90a", "gfx90a:sramecc+:xnack-", "gfx940", "gfx941", "gfx942"}) {
    EXPECT_EQ(f16_matrix_lanes(arch), 64) << arch;
    EXPECT_TRUE(arch_has_f16_matrix_cores(arch)) << arch;
  }
  // RDNA (no MFMA; RDNA3's WMMA is not used), older GPUs, and what does not parse.
  for (const char* arch : {"gfx1030", "gfx1100", "gfx1101", "gfx906", "gfx900", "gfx90", "sm_61", "sm_53", "sm_7",
                           "sm_", "sm_9x", "sm_8a", "", "cpu", "gfx90a0"}) {
    EXPECT_EQ(f16_matrix_lanes(arch), 0) << arch;
    EXPECT_FALSE(arch_has_f16_matrix_cores(arch)) << arch;
  }
}

TEST(HI_GPU_TEST_SUITE, MatrixCoreMatMulRefusesFloat32WithoutAGpu) {
  MatMulDesc d;
  d.m = d.n = d.k = 2;
  void* p = reinterpret_cast<void*>(64);  // never dereferenced: refused before any launch
  EXPECT_EQ(matmul_matrix_cores(DType::kFloat32, d, p, p, nullptr, p, nullptr).code(), StatusCode::kUnsupported);
  d.k = -1;
  EXPECT_EQ(matmul_matrix_cores(DType::kFloat16, d, p, p, nullptr, p, nullptr).code(), StatusCode::kInvalidArgument);
}

// A float16 product on awkward sizes: the operands, the descriptor, and the CPU op's result.
struct ProductCase {
  std::string what;
  Tensor a, b, c;  // c is empty when the product has none
  MatMulDesc d;
  Tensor want;  // the CPU Gemm or MatMul
};

// Every m, n, k below the 64 x 64 x 32 tile, one above it, or neither a multiple of it, including
// 1. For each: Gemm with a transpose pattern, alpha, beta and no C, C as a row, as a column, as a
// full matrix; and a batched MatMul, with either operand's batch broadcast or neither.
std::vector<ProductCase> awkward_f16_products() {
  const DType f16 = DType::kFloat16;
  std::vector<ProductCase> cases;
  uint32_t seed = 700;
  int index = 0;
  for (int64_t m : {1, 17, 129})
    for (int64_t n : {3, 65, 250})
      for (int64_t k : {1, 31, 257}) {
        const int v = index++;
        const std::string size = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
        {
          const bool ta = v & 1, tb = v & 2;
          const int c_kind = (v / 4) % 4;
          const Shape sa = ta ? Shape{k, m} : Shape{m, k}, sb = tb ? Shape{n, k} : Shape{k, n};
          const Shape c_shape = c_kind == 1 ? Shape{n} : c_kind == 2 ? Shape{m, 1} : Shape{m, n};
          ModelBuilder b(13);
          b.input("a", onnx_type(f16), std::vector<int64_t>(sa.begin(), sa.end()));
          b.input("b", onnx_type(f16), std::vector<int64_t>(sb.begin(), sb.end()));
          if (c_kind != 0) b.input("c", onnx_type(f16), std::vector<int64_t>(c_shape.begin(), c_shape.end()));
          b.output("y", onnx_type(f16));
          auto& node =
              b.node("Gemm", c_kind != 0 ? std::vector<std::string>{"a", "b", "c"} : std::vector<std::string>{"a", "b"},
                     {"y"});
          ModelBuilder::set_int(node, "transA", ta);
          ModelBuilder::set_int(node, "transB", tb);
          ModelBuilder::set_float(node, "alpha", 0.75f);
          ModelBuilder::set_float(node, "beta", -1.5f);
          ProductCase pc;
          pc.what = "Gemm " + size + " transA " + std::to_string(ta) + " transB " + std::to_string(tb) + " C " +
                    (c_kind == 0 ? std::string("none") : shape_to_string(c_shape));
          pc.a = random_tensor(f16, sa, seed++, false);
          pc.b = random_tensor(f16, sb, seed++, false);
          TensorMap inputs = {{"a", pc.a}, {"b", pc.b}};
          if (c_kind != 0) {
            pc.c = random_tensor(f16, c_shape, seed++, false);
            inputs.emplace("c", pc.c);
          }
          pc.want = run_on_cpu(b, inputs);
          pc.d.m = m;
          pc.d.n = n;
          pc.d.k = k;
          pc.d.trans_a = ta;
          pc.d.trans_b = tb;
          pc.d.alpha = 0.75f;
          pc.d.beta = -1.5f;
          pc.d.c_row_stride = c_kind == 1 ? 0 : c_kind == 2 ? 1 : n;
          pc.d.c_col_stride = c_kind == 2 ? 0 : 1;
          cases.push_back(std::move(pc));
        }
        {
          const int64_t batch_a = v % 3 == 1 ? 1 : 3, batch_b = v % 3 == 2 ? 1 : 3;
          const Shape sa = {batch_a, m, k}, sb = {batch_b, k, n};
          ModelBuilder b(13);
          b.input("a", onnx_type(f16), std::vector<int64_t>(sa.begin(), sa.end()));
          b.input("b", onnx_type(f16), std::vector<int64_t>(sb.begin(), sb.end()));
          b.output("y", onnx_type(f16));
          b.node("MatMul", {"a", "b"}, {"y"});
          ProductCase pc;
          pc.what = "MatMul " + shape_to_string(sa) + " x " + shape_to_string(sb);
          pc.a = random_tensor(f16, sa, seed++, false);
          pc.b = random_tensor(f16, sb, seed++, false);
          pc.want = run_on_cpu(b, {{"a", pc.a}, {"b", pc.b}});
          pc.d.batch = 3;
          pc.d.m = m;
          pc.d.n = n;
          pc.d.k = k;
          pc.d.a_batch_stride = batch_a == 1 ? 0 : m * k;
          pc.d.b_batch_stride = batch_b == 1 ? 0 : k * n;
          pc.d.y_batch_stride = m * n;
          cases.push_back(std::move(pc));
        }
      }
  return cases;
}

// The descriptor's contract (matmul.h) computed on the host in double and rounded once.
Tensor host_product(const ProductCase& pc) {
  const MatMulDesc& d = pc.d;
  const int64_t a_row = d.trans_a ? 1 : d.k, a_col = d.trans_a ? d.m : 1;
  const int64_t b_row = d.trans_b ? 1 : d.n, b_col = d.trans_b ? d.k : 1;
  Tensor y = Tensor::empty(DType::kFloat16, pc.want.shape());
  for (int64_t t = 0; t < d.batch; ++t)
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) {
        double sum = 0;
        for (int64_t kk = 0; kk < d.k; ++kk)
          sum += pc.a.as_double(t * d.a_batch_stride + i * a_row + kk * a_col) *
                 pc.b.as_double(t * d.b_batch_stride + kk * b_row + j * b_col);
        double v = d.alpha * sum;
        if (pc.c.numel() > 0) v += d.beta * pc.c.as_double(i * d.c_row_stride + j * d.c_col_stride);
        y.data<Float16>()[t * d.y_batch_stride + i * d.n + j] = Float16(static_cast<float>(v));
      }
  return y;
}

// Without a GPU: the cases' descriptors say what the CPU ops compute, so a failure of the device
// test below is the kernel's, not the test's.
TEST(HI_GPU_TEST_SUITE, AwkwardProductDescriptorsMatchTheCpuOpsWithoutAGpu) {
  for (const ProductCase& pc : awkward_f16_products())
    expect_close_f16_sums(pc.want, host_product(pc), abs_products(pc.a, pc.b, pc.d), pc.d.alpha, pc.d.k,
                          pc.what + ": host loop against the CPU op");
}

TEST(HI_GPU_TEST_SUITE, MatrixCoreMatMulMatchesTheTiledKernelAndTheCpu) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  if (!has_f16_matrix_cores(0)) {
    MatMulDesc d;
    d.m = d.n = d.k = 2;
    void* p = reinterpret_cast<void*>(64);  // refused before any launch
    EXPECT_EQ(matmul_matrix_cores(DType::kFloat16, d, p, p, nullptr, p, nullptr).code(), StatusCode::kUnsupported);
    const Result<DeviceInfo> info = device_properties(0);
    GTEST_SKIP() << "device 0 (" << (info.is_ok() ? info->arch : std::string("?"))
                 << ") has no float16 matrix cores: matmul() keeps float16 on the tiled kernel";
  }
  for (const ProductCase& pc : awkward_f16_products()) {
    // The matrix-core kernel, the tiled kernel and matmul(): the first against the CPU and against
    // the second, and matmul() must have chosen the first (both kernels are deterministic, so its
    // output is the matrix-core one bit for bit).
    std::vector<const Tensor*> in = {&pc.a, &pc.b};
    if (pc.c.numel() > 0) in.push_back(&pc.c);
    auto run = [&](auto kernel) {
      return run_on_gpu(in, DType::kFloat16, pc.want.shape(), [&](const std::vector<void*>& dev, void* y) {
        return kernel(DType::kFloat16, pc.d, dev[0], dev[1], dev.size() > 2 ? dev[2] : nullptr, y, nullptr);
      });
    };
    const Tensor mma = run(&matmul_matrix_cores), tiled = run(&matmul_tiled), chosen = run(&matmul);
    const std::vector<double> abs = abs_products(pc.a, pc.b, pc.d);
    expect_close_f16_sums(pc.want, mma, abs, pc.d.alpha, pc.d.k, pc.what + ": matrix cores against the CPU");
    expect_close_f16_sums(tiled, mma, abs, pc.d.alpha, pc.d.k, pc.what + ": matrix cores against the tiled kernel");
    EXPECT_EQ(std::memcmp(chosen.raw(), mma.raw(), mma.nbytes()), 0)
        << pc.what << ": matmul() did not take the matrix cores";
  }
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
