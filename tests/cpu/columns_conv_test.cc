// The im2col + sgemm convolution (backends/cpu/kernels/columns_conv.cc) against a plain loop over random data,
// channels-first: tall 5x1 windows as in Magika's model, 1x1 read in place, strides, dilation,
// asymmetric padding, batches, a residual and activations, at awkward sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "cpu/kernel_test_util.h"
#include "backends/cpu/kernels/kernels.h"
#include "backends/cpu/kernels/weight_cache.h"

namespace hi::cpu {
namespace {

struct Case {
  int64_t batch, channels, h, w, out_channels, kh, kw, stride, dilation;
  std::vector<int64_t> pads;  // top, left, bottom, right
  Activation::Kind act;
  bool residual;
  bool channels_last = false;
  bool input_channels_first = false;  // with channels_last: a first layer reading the image as fed
};

class ColumnsConv : public ::testing::TestWithParam<Case> {};

TEST_P(ColumnsConv, MatchesAPlainLoop) {
  const Case& c = GetParam();
  ConvGeometry g = conv_geometry(c.batch, c.channels, c.out_channels, c.h, c.w, c.kh, c.kw, c.stride, c.pads);
  g.channels_last = c.channels_last;
  g.input_channels_first = c.input_channels_first;
  g.dilations = {c.dilation, c.dilation};
  const int64_t ekh = (c.kh - 1) * c.dilation + 1, ekw = (c.kw - 1) * c.dilation + 1;
  g.out = {(c.h + c.pads[0] + c.pads[2] - ekh) / c.stride + 1, (c.w + c.pads[1] + c.pads[3] - ekw) / c.stride + 1};
  Activation act;
  act.kind = c.act;
  act.alpha = 0.1f;
  const auto x = random_values(static_cast<size_t>(c.batch * c.channels * c.h * c.w), 1);
  const auto w = random_values(static_cast<size_t>(c.out_channels * c.channels * c.kh * c.kw), 2);
  const auto b = random_values(static_cast<size_t>(c.out_channels), 3);
  const int64_t oh = g.out[0], ow = g.out[1];
  const size_t out_size = static_cast<size_t>(c.batch * c.out_channels * oh * ow);
  const auto z = random_values(out_size, 4);
  auto kernel = make_columns_conv_kernel(g, w.data(), b.data(), act, c.residual);
  ASSERT_NE(kernel, nullptr);
  std::vector<float> y(out_size, NAN);
  ASSERT_TRUE(kernel->run(x.data(), c.residual ? z.data() : nullptr, y.data()).is_ok());
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t o = 0; o < c.out_channels; ++o)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double acc = b[static_cast<size_t>(o)];
          for (int64_t ci = 0; ci < c.channels; ++ci)
            for (int64_t ky = 0; ky < c.kh; ++ky)
              for (int64_t kx = 0; kx < c.kw; ++kx) {
                const int64_t iy = oy * c.stride - c.pads[0] + ky * c.dilation;
                const int64_t ix = ox * c.stride - c.pads[1] + kx * c.dilation;
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                const bool x_last = c.channels_last && !c.input_channels_first;
                const int64_t xi = x_last ? ((n * c.h + iy) * c.w + ix) * c.channels + ci
                                          : ((n * c.channels + ci) * c.h + iy) * c.w + ix;
                acc += double(x[static_cast<size_t>(xi)]) *
                       w[static_cast<size_t>(((o * c.channels + ci) * c.kh + ky) * c.kw + kx)];
              }
          const size_t at = static_cast<size_t>(c.channels_last ? ((n * oh + oy) * ow + ox) * c.out_channels + o
                                                                : ((n * c.out_channels + o) * oh + oy) * ow + ox);
          if (c.residual) acc += z[at];
          const float want = act.apply(static_cast<float>(acc));
          ASSERT_NEAR(y[at], want, 1e-4 * (1 + std::fabs(want)))
              << "n " << n << " o " << o << " oy " << oy << " ox " << ox;
        }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ColumnsConv,
    ::testing::Values(
        Case{1, 64, 67, 1, 37, 5, 1, 1, 1, {0, 0, 0, 0}, Activation::Kind::kNone, false},      // Magika-like 5x1
        Case{2, 7, 13, 11, 9, 3, 3, 2, 1, {1, 0, 2, 1}, Activation::Kind::kRelu, true},        // asymmetric pads
        Case{1, 5, 9, 10, 17, 3, 2, 1, 2, {2, 1, 2, 1}, Activation::Kind::kLeakyRelu, false},  // dilation 2
        Case{3, 19, 6, 5, 23, 1, 1, 1, 1, {0, 0, 0, 0}, Activation::Kind::kNone, true},        // 1x1 read in place
        Case{1, 3, 4, 31, 8, 1, 1, 2, 1, {0, 0, 0, 0}, Activation::Kind::kRelu, false},        // 1x1 strided
        // Channels-last: the same kinds of case with patches as rows.
        Case{1, 64, 67, 1, 37, 5, 1, 1, 1, {0, 0, 0, 0}, Activation::Kind::kNone, false, true},
        Case{2, 7, 13, 11, 9, 3, 3, 2, 1, {1, 0, 2, 1}, Activation::Kind::kRelu, true, true},
        Case{1, 5, 9, 10, 17, 3, 2, 1, 2, {2, 1, 2, 1}, Activation::Kind::kLeakyRelu, true, true},
        Case{3, 19, 6, 5, 23, 1, 1, 1, 1, {0, 0, 0, 0}, Activation::Kind::kNone, true, true},
        // Channels-first input, channels-last output.
        Case{1, 64, 67, 1, 37, 5, 1, 1, 1, {0, 0, 0, 0}, Activation::Kind::kNone, false, true, true},
        Case{2, 3, 11, 9, 10, 1, 1, 1, 1, {0, 0, 0, 0}, Activation::Kind::kRelu, true, true, true}));

// Kernels of one op for other input sizes share one reordered copy of the weights (weight_cache.h),
// which goes with the last of them.
TEST(ColumnsConv, KernelsForOtherSizesShareTheirWeights) {
  const auto w = random_values(5 * 7 * 3 * 3, 1);
  WeightCache cache;
  std::vector<std::unique_ptr<ConvKernel>> kept;
  for (bool channels_last : {true, false})
    for (int64_t size : {9, 14, 23}) {
      ConvGeometry g = conv_geometry(1, 7, 5, size, size + 2, 3, 3, 1, {1, 1, 1, 1});
      g.channels_last = channels_last;
      kept.push_back(make_columns_conv_kernel(g, w.data(), nullptr, Activation{}, false, &cache));
      ASSERT_NE(kept.back(), nullptr);
    }
  EXPECT_EQ(cache.live_entries(), 2u);  // one per weight order: [O][kh kw C] and [O][C kh kw]
  kept.clear();
  EXPECT_EQ(cache.live_entries(), 0u);
}

TEST(ColumnsConvRefuses, WhatItDoesNotDo) {
  std::vector<float> w(64, 0.5f);
  ConvGeometry g = conv_geometry(1, 4, 4, 8, 8, 1, 1, 1, {0, 0, 0, 0});
  EXPECT_NE(make_columns_conv_kernel(g, w.data(), nullptr, Activation{}, false), nullptr);
  g.in = {8, 8, 8};  // 3-D
  EXPECT_EQ(make_columns_conv_kernel(g, w.data(), nullptr, Activation{}, false), nullptr);
  g.in = {8, 8};
  g.groups = 2;
  EXPECT_EQ(make_columns_conv_kernel(g, w.data(), nullptr, Activation{}, false), nullptr);
}

}  // namespace
}  // namespace hi::cpu
