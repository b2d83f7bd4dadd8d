// The inverted residual block's two kernels, the fused strip walk and the chain of three
// convolutions (backends/cpu/kernels/inverted_residual.h), against the block written out in double: odd image and
// channel counts, with and without expansion, strides 1 and 2, 3x3 and 5x5 windows, with and
// without the residual; and in bfloat16 against the block written out with its roundings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/kernels/inverted_residual.h"
#include "cpu/kernel_test_util.h"
#include "backends/cpu/kernels/packed_gemm_bf16.h"

namespace hi::cpu {
namespace {

struct Block {
  InvertedResidualGeometry g;
  std::vector<float> we, be, wd, bd, wp, bp;
  InvertedResidualWeights weights() const {
    InvertedResidualWeights w;
    w.expand_w = g.expand ? we.data() : nullptr;
    w.expand_b = g.expand ? be.data() : nullptr;
    w.depthwise_w = wd.data();
    w.depthwise_b = bd.data();
    w.project_w = wp.data();
    w.project_b = bp.data();
    w.expand_act.kind = w.depthwise_act.kind = Activation::Kind::kClip;
    w.expand_act.alpha = w.depthwise_act.alpha = 0.f;
    w.expand_act.beta = w.depthwise_act.beta = 6.f;
    return w;
  }
};

Block make_block(int64_t batch, int64_t h, int64_t w, int64_t c, int64_t hidden, int64_t o, bool expand, int64_t k,
                 int64_t stride, bool residual, uint32_t seed) {
  Block b;
  InvertedResidualGeometry& g = b.g;
  g.batch = batch;
  g.height = h;
  g.width = w;
  g.in_channels = c;
  g.hidden = expand ? hidden : c;
  g.out_channels = o;
  g.expand = expand;
  g.kernel_h = g.kernel_w = k;
  g.stride_h = g.stride_w = stride;
  g.pad_top = g.pad_left = k / 2;
  g.out_height = (h + 2 * (k / 2) - k) / stride + 1;
  g.out_width = (w + 2 * (k / 2) - k) / stride + 1;
  g.residual = residual;
  b.we = random_values(static_cast<size_t>(g.hidden * c), seed);
  b.be = random_values(static_cast<size_t>(g.hidden), seed + 1);
  b.wd = random_values(static_cast<size_t>(g.hidden * k * k), seed + 2);
  b.bd = random_values(static_cast<size_t>(g.hidden), seed + 3);
  b.wp = random_values(static_cast<size_t>(o * g.hidden), seed + 4);
  b.bp = random_values(static_cast<size_t>(o), seed + 5);
  return b;
}

// With bf16, each pointwise product's inputs and weights rounded to bfloat16 first, as the fused
// kernel does (the depthwise convolution stays float32).
std::vector<double> reference(const Block& b, const std::vector<float>& x, const std::vector<float>* z,
                              bool bf16 = false) {
  const InvertedResidualGeometry& g = b.g;
  auto r = [&](double v) { return bf16 ? static_cast<double>(from_bf16(to_bf16(static_cast<float>(v)))) : v; };
  auto clip6 = [](double v) { return std::min(6.0, std::max(0.0, v)); };
  const int64_t m = g.hidden;
  std::vector<double> e(static_cast<size_t>(g.batch * g.height * g.width * m));
  for (int64_t p = 0; p < g.batch * g.height * g.width; ++p)
    for (int64_t j = 0; j < m; ++j) {
      if (!g.expand) {
        e[static_cast<size_t>(p * m + j)] = x[static_cast<size_t>(p * m + j)];
        continue;
      }
      double acc = b.be[static_cast<size_t>(j)];
      for (int64_t i = 0; i < g.in_channels; ++i)
        acc += r(x[static_cast<size_t>(p * g.in_channels + i)]) * r(b.we[static_cast<size_t>(j * g.in_channels + i)]);
      e[static_cast<size_t>(p * m + j)] = clip6(acc);
    }
  std::vector<double> y(static_cast<size_t>(g.batch * g.out_height * g.out_width * g.out_channels));
  std::vector<double> d(static_cast<size_t>(m));
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oy = 0; oy < g.out_height; ++oy)
      for (int64_t ox = 0; ox < g.out_width; ++ox) {
        for (int64_t j = 0; j < m; ++j) {
          double acc = b.bd[static_cast<size_t>(j)];
          for (int64_t ky = 0; ky < g.kernel_h; ++ky)
            for (int64_t kx = 0; kx < g.kernel_w; ++kx) {
              const int64_t iy = oy * g.stride_h - g.pad_top + ky, ix = ox * g.stride_w - g.pad_left + kx;
              if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width) continue;
              acc += e[static_cast<size_t>(((n * g.height + iy) * g.width + ix) * m + j)] *
                     b.wd[static_cast<size_t>((j * g.kernel_h + ky) * g.kernel_w + kx)];
            }
          d[static_cast<size_t>(j)] = clip6(acc);
        }
        const int64_t p = (n * g.out_height + oy) * g.out_width + ox;
        for (int64_t o = 0; o < g.out_channels; ++o) {
          double acc = b.bp[static_cast<size_t>(o)];
          for (int64_t j = 0; j < m; ++j) acc += r(d[static_cast<size_t>(j)]) * r(b.wp[static_cast<size_t>(o * m + j)]);
          if (z) acc += (*z)[static_cast<size_t>(p * g.out_channels + o)];
          y[static_cast<size_t>(p * g.out_channels + o)] = acc;
        }
      }
  return y;
}

TEST(InvertedResidualKernels, FusedAndChainedMatchTheBlockWrittenOut) {
  if (!inverted_residual_available()) GTEST_SKIP() << "no AVX-512 on this CPU: neither kernel is made";
  const Block blocks[] = {
      make_block(2, 9, 11, 5, 30, 7, true, 3, 1, true, 1), make_block(1, 14, 13, 24, 0, 16, false, 3, 2, false, 2),
      make_block(3, 7, 7, 16, 96, 24, true, 5, 1, true, 3), make_block(1, 16, 15, 17, 40, 17, true, 3, 2, false, 4)};
  int chained_made = 0;
  for (const Block& b : blocks) {
    const InvertedResidualGeometry& g = b.g;
    const auto x = random_values(static_cast<size_t>(g.batch * g.height * g.width * g.in_channels), 40);
    const auto z = random_values(static_cast<size_t>(g.batch * g.out_height * g.out_width * g.out_channels), 41);
    const std::vector<double> want = reference(b, x, g.residual ? &z : nullptr);
    std::unique_ptr<InvertedResidualKernel> kernels[] = {make_fused_inverted_residual_kernel(g, b.weights()),
                                                         make_chained_inverted_residual_kernel(g, b.weights())};
    ASSERT_TRUE(kernels[0]) << "the fused kernel is made wherever AVX-512 is";
    chained_made += kernels[1] != nullptr;
    for (const auto& k : kernels) {
      if (!k) continue;
      std::vector<float> y(want.size(), NAN);
      k->run(x.data(), g.residual ? z.data() : nullptr, y.data());
      for (size_t i = 0; i < y.size(); ++i)
        ASSERT_NEAR(y[i], want[i], 1e-4 * (1 + std::fabs(want[i])))
            << k->describe() << " " << g.height << "x" << g.width << " hidden " << g.hidden << " at " << i;
    }
  }
  if (fast_kernels_available()) {
    EXPECT_EQ(chained_made, 4) << "with oneDNN every block here has a chained form";
  }
}

// bf16: the fused kernel's products in bfloat16 match the block written out with the same
// roundings (a few values of D may round the other way from the reference's, so a few outputs
// may differ by one bfloat16 step of one term), and differ from the float32 block by the
// rounding; the chain (oneDNN's bfloat16 convolutions, which round more) stays near float32.
TEST(InvertedResidualKernels, Bf16ProductsMatchTheBlockWrittenOutWithItsRoundings) {
  if (!inverted_residual_available() || !bf16_kernels_available()) GTEST_SKIP() << "no AVX512_BF16 on this CPU";
  const Block blocks[] = {
      make_block(2, 9, 11, 5, 30, 7, true, 3, 1, true, 5), make_block(1, 14, 13, 24, 0, 16, false, 3, 2, false, 6),
      make_block(3, 7, 7, 16, 96, 24, true, 5, 1, true, 7), make_block(1, 16, 15, 17, 40, 17, true, 3, 2, false, 8)};
  for (Block b : blocks) {
    b.g.bf16 = true;
    const InvertedResidualGeometry& g = b.g;
    const auto x = random_values(static_cast<size_t>(g.batch * g.height * g.width * g.in_channels), 50);
    const auto z = random_values(static_cast<size_t>(g.batch * g.out_height * g.out_width * g.out_channels), 51);
    const std::vector<double> rounded = reference(b, x, g.residual ? &z : nullptr, true);
    const std::vector<double> exact = reference(b, x, g.residual ? &z : nullptr, false);
    double scale = 0;
    for (double v : exact) scale = std::max(scale, std::fabs(v));
    auto fused = make_fused_inverted_residual_kernel(g, b.weights());
    ASSERT_TRUE(fused);
    EXPECT_NE(fused->describe().find("bf16"), std::string::npos) << fused->describe();
    std::vector<float> y(exact.size(), NAN);
    fused->run(x.data(), g.residual ? z.data() : nullptr, y.data());
    size_t off = 0;
    double from_exact = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      ASSERT_NEAR(y[i], rounded[i], 2e-2 * scale) << "hidden " << g.hidden << " at " << i;
      off += std::fabs(y[i] - rounded[i]) > 1e-4 * (1 + std::fabs(rounded[i]));
      from_exact = std::max(from_exact, std::fabs(y[i] - exact[i]));
    }
    EXPECT_LE(off, y.size() / 50) << "outputs off the rounded block, hidden " << g.hidden;
    EXPECT_GT(from_exact, 1e-4 * scale) << "the products did run in bfloat16";
    if (auto chained = make_chained_inverted_residual_kernel(g, b.weights())) {
      chained->run(x.data(), g.residual ? z.data() : nullptr, y.data());
      for (size_t i = 0; i < y.size(); ++i)
        ASSERT_NEAR(y[i], exact[i], 3e-2 * scale) << chained->describe() << " at " << i;
    }
  }
}

}  // namespace
}  // namespace hi::cpu
