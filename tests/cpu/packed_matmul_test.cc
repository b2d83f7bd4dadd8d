// The own packed matrix product (backends/cpu/kernels/packed_matmul.cc, backends/cpu/kernels/packed_gemm.cc) and
// oneDNN's (backends/cpu/kernels/dnnl_matmul.cc) against a plain loop in double: awkward row, depth and column counts
// (tails of tiles, of 16-column vectors and of 64-column blocks), with and without bias and residual, through the
// activations they fuse.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "backends/cpu/kernels/kernels.h"
#include "backends/cpu/kernels/packed_gemm.h"
#include "cpu/kernel_test_util.h"

namespace hi::cpu {
namespace {

using MakeMatMul = std::unique_ptr<MatMulKernel> (*)(int64_t, int64_t, int64_t, const float*, const float*,
                                                     const Activation&, bool);

// The kernel `make` builds against the loop, over awkward sizes and every fused epilogue.
void expect_matches_a_plain_loop(MakeMatMul make) {
  struct Case {
    int64_t rows, k, n;
    Activation::Kind act;
    bool bias, residual;
  };
  const Case cases[] = {
      {1, 1, 1, Activation::Kind::kNone, false, false},       {5, 3, 17, Activation::Kind::kRelu, true, false},
      {47, 17, 15, Activation::Kind::kNone, true, true},      {97, 300, 130, Activation::Kind::kGelu, true, false},
      {128, 64, 65, Activation::Kind::kGeluTanh, true, true}, {13, 33, 200, Activation::Kind::kClip, false, true},
      {49, 160, 33, Activation::Kind::kTanh, true, false},    {50, 257, 70, Activation::Kind::kRelu, true, true},
      {20, 384, 64, Activation::Kind::kClip, false, true},   // k past one 128-row pass
      {131, 40, 263, Activation::Kind::kGelu, true, true}};  // several threads' share of an epilogue
  uint32_t seed = 1;
  for (const Case& c : cases) {
    Activation act;
    act.kind = c.act;
    act.alpha = -0.5f;
    act.beta = 0.75f;
    const auto a = random_values(static_cast<size_t>(c.rows * c.k), seed++);
    const auto w = random_values(static_cast<size_t>(c.k * c.n), seed++);
    const auto b = random_values(static_cast<size_t>(c.n), seed++);
    const auto z = random_values(static_cast<size_t>(c.rows * c.n), seed++);
    auto kernel = make(c.rows, c.k, c.n, w.data(), c.bias ? b.data() : nullptr, act, c.residual);
    if (!kernel) GTEST_SKIP() << "this kernel is not made here (no AVX-512 on this CPU, or no oneDNN in this build)";
    std::vector<float> y(static_cast<size_t>(c.rows * c.n), NAN);
    ASSERT_TRUE(kernel->run(a.data(), c.residual ? z.data() : nullptr, y.data()).is_ok());
    for (int64_t r = 0; r < c.rows; ++r)
      for (int64_t j = 0; j < c.n; ++j) {
        double acc = c.bias ? b[static_cast<size_t>(j)] : 0.0;
        for (int64_t i = 0; i < c.k; ++i)
          acc += double(a[static_cast<size_t>(r * c.k + i)]) * w[static_cast<size_t>(i * c.n + j)];
        if (c.residual) acc += z[static_cast<size_t>(r * c.n + j)];
        const float want = act.apply(static_cast<float>(acc));
        ASSERT_NEAR(y[static_cast<size_t>(r * c.n + j)], want, 1e-4 * (1 + std::fabs(want)))
            << kernel->describe() << ": " << c.rows << "x" << c.k << "x" << c.n << " " << act.name() << " at " << r
            << "," << j;
      }
  }
}

TEST(PackedMatMul, MatchesAPlainLoop) {
  expect_matches_a_plain_loop([](int64_t rows, int64_t k, int64_t n, const float* w, const float* b,
                                 const Activation& act,
                                 bool sum) { return make_packed_matmul_kernel(rows, k, n, w, b, act, sum); });
}

// oneDNN's matmul, GELU applied by our own code after it (not as oneDNN's post-op) among the cases.
TEST(DnnlMatMul, MatchesAPlainLoop) {
  expect_matches_a_plain_loop([](int64_t rows, int64_t k, int64_t n, const float* w, const float* b,
                                 const Activation& act,
                                 bool sum) { return make_dnnl_matmul_kernel(rows, k, n, w, b, act, sum); });
}

// The memory objects a oneDNN kernel keeps per thread are pointed at each run's buffers: one
// kernel run by several threads at once, each on buffers of its own that change from run to run,
// gives every run its own product.
TEST(DnnlMatMul, ThreadsAndNewBuffersEachGetTheirOwnProduct) {
  const int64_t rows = 7, k = 19, n = 11;
  const auto w = random_values(static_cast<size_t>(k * n), 1);
  const auto b = random_values(static_cast<size_t>(n), 2);
  auto kernel = make_dnnl_matmul_kernel(rows, k, n, w.data(), b.data(), Activation{}, false);
  if (!kernel) GTEST_SKIP() << "no oneDNN in this build";
  auto product = [&](const std::vector<float>& a) {
    std::vector<float> y(static_cast<size_t>(rows * n));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) {
        double acc = b[static_cast<size_t>(j)];
        for (int64_t i = 0; i < k; ++i)
          acc += double(a[static_cast<size_t>(r * k + i)]) * w[static_cast<size_t>(i * n + j)];
        y[static_cast<size_t>(r * n + j)] = static_cast<float>(acc);
      }
    return y;
  };
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (uint32_t run = 0; run < 50; ++run) {
        const auto a = random_values(static_cast<size_t>(rows * k), 100 + t * 1000 + run);
        std::vector<float> y(static_cast<size_t>(rows * n), NAN);  // a new buffer every run
        if (!kernel->run(a.data(), nullptr, y.data()).is_ok()) ++wrong;
        const auto want = product(a);
        for (size_t i = 0; i < y.size(); ++i)
          if (!(std::fabs(y[i] - want[i]) <= 1e-4 * (1 + std::fabs(want[i])))) {
            ++wrong;
            break;
          }
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// A channels-last 1x1 convolution on the packed product: weights [O, C, 1, 1], odd sizes.
// The executor may hand a residual's buffer as the output (in place): every pass over k must
// read Z before that tile of the output is written.
TEST(PackedMatMul, ResidualMayBeTheOutput) {
  const int64_t rows = 30, k = 300, n = 40;
  Activation relu;
  relu.kind = Activation::Kind::kRelu;
  const auto a = random_values(static_cast<size_t>(rows * k), 11);
  const auto w = random_values(static_cast<size_t>(k * n), 12);
  const auto z = random_values(static_cast<size_t>(rows * n), 13);
  auto kernel = make_packed_matmul_kernel(rows, k, n, w.data(), nullptr, relu, true);
  if (!kernel) GTEST_SKIP() << "no AVX-512 on this CPU: the packed product is not made";
  std::vector<float> separate(z.size()), in_place = z;
  ASSERT_TRUE(kernel->run(a.data(), z.data(), separate.data()).is_ok());
  ASSERT_TRUE(kernel->run(a.data(), in_place.data(), in_place.data()).is_ok());
  for (size_t i = 0; i < z.size(); ++i) ASSERT_EQ(in_place[i], separate[i]) << i;
  for (int64_t j = 0; j < n; ++j) {
    double acc = z[static_cast<size_t>(j)];
    for (int64_t i = 0; i < k; ++i) acc += double(a[static_cast<size_t>(i)]) * w[static_cast<size_t>(i * n + j)];
    ASSERT_NEAR(separate[static_cast<size_t>(j)], std::max(0.0, acc), 1e-4 * (1 + std::fabs(acc))) << j;
  }
}

// Packing a strided [k, n] view whose k values per column are contiguous (attention's K as K^T,
// a 1x1 convolution's [O, C]) goes through 16x16 register transposes: every element of the
// layout, padding rows and columns included, against the definition.
TEST(PackedWeights, ContiguousColumnsMatchTheLayoutsDefinition) {
  for (const auto [k_real, k_padded, n, n_stride] :
       {std::array<int64_t, 4>{37, 40, 35, 41}, {64, 64, 128, 256}, {1, 1, 1, 1}, {16, 17, 16, 16}, {5, 8, 70, 9}}) {
    const auto src = random_values(static_cast<size_t>(n * n_stride + k_real), 31);
    PackedWeights p;
    p.pack(src.data(), k_real, k_padded, n, 1, n_stride, 0.5f, nullptr);
    ASSERT_EQ(p.k, k_padded);
    ASSERT_EQ(p.vectors, (n + 15) / 16);
    for (int64_t v = 0; v < p.vectors; ++v)
      for (int64_t i = 0; i < k_padded; ++i)
        for (int64_t l = 0; l < 16; ++l) {
          const int64_t o = v * 16 + l;
          const float want = o < n && i < k_real ? src[static_cast<size_t>(o * n_stride + i)] * 0.5f : 0.f;
          ASSERT_EQ(p.w[static_cast<size_t>((v * k_padded + i) * 16 + l)], want)
              << k_real << "x" << n << " at " << v << "," << i << "," << l;
        }
  }
}

TEST(PackedPointwiseConv, MatchesAPlainLoop) {
  const ConvGeometry g = conv_geometry(2, 19, 37, 5, 7, 1, 1, 1, {0, 0, 0, 0});
  Activation relu;
  relu.kind = Activation::Kind::kRelu;
  const int64_t pixels = 2 * 5 * 7;
  const auto x = random_values(static_cast<size_t>(pixels * 19), 11);
  const auto w = random_values(19 * 37, 12);
  const auto b = random_values(37, 13);
  const auto z = random_values(static_cast<size_t>(pixels * 37), 14);
  auto kernel = make_packed_pointwise_conv_kernel(g, w.data(), b.data(), relu, true);
  if (!kernel) GTEST_SKIP() << "no AVX-512 on this CPU: the packed product is not made";
  std::vector<float> y(static_cast<size_t>(pixels * 37), NAN);
  ASSERT_TRUE(kernel->run(x.data(), z.data(), y.data()).is_ok());
  for (int64_t p = 0; p < pixels; ++p)
    for (int64_t o = 0; o < 37; ++o) {
      double acc = b[static_cast<size_t>(o)] + z[static_cast<size_t>(p * 37 + o)];
      for (int64_t c = 0; c < 19; ++c)
        acc += double(x[static_cast<size_t>(p * 19 + c)]) * w[static_cast<size_t>(o * 19 + c)];
      ASSERT_NEAR(y[static_cast<size_t>(p * 37 + o)], relu.apply(static_cast<float>(acc)), 1e-4) << p << " " << o;
    }
  // Strided, padded, grouped or channels-first convolutions are not products: refused.
  ConvGeometry strided = g;
  strided.strides = {2, 2};
  EXPECT_EQ(make_packed_pointwise_conv_kernel(strided, w.data(), b.data(), relu, false), nullptr);
  ConvGeometry first = g;
  first.channels_last = false;
  EXPECT_EQ(make_packed_pointwise_conv_kernel(first, w.data(), b.data(), relu, false), nullptr);
  ConvGeometry wide = g;
  wide.kernel = {3, 3};
  EXPECT_EQ(make_packed_pointwise_conv_kernel(wide, w.data(), b.data(), relu, false), nullptr);
}

TEST(PackedMatMul, RefusesActivationsItHasNoVectorFormFor) {
  Activation leaky;
  leaky.kind = Activation::Kind::kLeakyRelu;
  const std::vector<float> w(4 * 4, 1.f);
  EXPECT_EQ(make_packed_matmul_kernel(2, 4, 4, w.data(), nullptr, leaky, false), nullptr);
  EXPECT_EQ(make_packed_matmul_kernel(0, 4, 4, w.data(), nullptr, Activation{}, false), nullptr);
}

}  // namespace
}  // namespace hi::cpu
