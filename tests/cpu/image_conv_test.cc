// The own first-layer convolution (backends/cpu/kernels/image_conv.cc) against a plain loop over random data:
// 1-4 input channels, odd image sizes, 3x3 / 7x7 / 5x3 windows, strides 1 and 2, asymmetric
// padding, output channel counts that are and are not multiples of 16, residual and activations.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "backends/cpu/kernels/kernels.h"
#include "cpu/kernel_test_util.h"

namespace hi::cpu {
namespace {

struct Case {
  int64_t batch, channels, h, w, out_channels, kh, kw, stride;
  std::vector<int64_t> pads;  // top, left, bottom, right
  Activation::Kind act;
  bool residual;
};

class ImageConv : public ::testing::TestWithParam<Case> {};

TEST_P(ImageConv, MatchesAPlainLoop) {
  const Case& c = GetParam();
  const ConvGeometry g =
      conv_geometry(c.batch, c.channels, c.out_channels, c.h, c.w, c.kh, c.kw, c.stride, c.pads, true);
  Activation act;
  act.kind = c.act;
  act.alpha = 0.f;
  act.beta = 6.f;
  const auto x = random_values(static_cast<size_t>(c.batch * c.channels * c.h * c.w), 1);
  const auto w = random_values(static_cast<size_t>(c.out_channels * c.channels * c.kh * c.kw), 2);
  const auto b = random_values(static_cast<size_t>(c.out_channels), 3);
  const int64_t oh = g.out[0], ow = g.out[1];
  const size_t out_size = static_cast<size_t>(c.batch * oh * ow * c.out_channels);
  const auto z = random_values(out_size, 4);
  auto kernel = make_image_conv_kernel(g, w.data(), b.data(), act, c.residual);
  if (!kernel) GTEST_SKIP() << "no AVX-512 on this CPU: the image convolution kernel is not made";
  std::vector<float> y(out_size, NAN);
  ASSERT_TRUE(kernel->run(x.data(), c.residual ? z.data() : nullptr, y.data()).is_ok());
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t o = 0; o < c.out_channels; ++o) {
          double acc = b[static_cast<size_t>(o)];
          for (int64_t ci = 0; ci < c.channels; ++ci)
            for (int64_t ky = 0; ky < c.kh; ++ky)
              for (int64_t kx = 0; kx < c.kw; ++kx) {
                const int64_t iy = oy * c.stride - c.pads[0] + ky, ix = ox * c.stride - c.pads[1] + kx;
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                acc += double(x[static_cast<size_t>(((n * c.channels + ci) * c.h + iy) * c.w + ix)]) *
                       w[static_cast<size_t>(((o * c.channels + ci) * c.kh + ky) * c.kw + kx)];
              }
          const size_t at = static_cast<size_t>(((n * oh + oy) * ow + ox) * c.out_channels + o);
          if (c.residual) acc += z[at];
          const float want = act.apply(static_cast<float>(acc));
          ASSERT_NEAR(y[at], want, 1e-4 * (1 + std::fabs(want)))
              << "n " << n << " oy " << oy << " ox " << ox << " o " << o;
        }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ImageConv,
    ::testing::Values(
        Case{1, 3, 224, 224, 32, 3, 3, 2, {1, 1, 1, 1}, Activation::Kind::kClip, false},  // MobileNetV2's first layer
        Case{2, 3, 23, 17, 40, 7, 7, 2, {3, 3, 3, 3}, Activation::Kind::kRelu, false},    // ResNet-style, odd sizes
        Case{1, 1, 9, 31, 5, 3, 3, 1, {1, 1, 1, 1}, Activation::Kind::kNone, true},       // one channel, residual
        Case{3, 4, 12, 11, 16, 5, 3, 1, {0, 2, 1, 0}, Activation::Kind::kClip, false},    // asymmetric pads
        Case{1, 2, 2, 3, 33, 3, 3, 2, {0, 0, 1, 1}, Activation::Kind::kRelu, true},       // tiny image, TF SAME
        Case{1, 3, 5, 40, 17, 3, 3, 1, {0, 0, 0, 0}, Activation::Kind::kNone, false}));   // no padding

TEST(ImageConv, RefusesWhatItDoesNotDo) {
  ConvGeometry g;
  g.batch = 1;
  g.in_channels = 8;  // too many channels for this kernel
  g.out_channels = 16;
  g.in = {8, 8};
  g.out = {8, 8};
  g.kernel = {3, 3};
  g.strides = g.dilations = {1, 1};
  g.pads_begin = g.pads_end = {1, 1};
  g.channels_last = g.input_channels_first = true;
  const std::vector<float> w(8 * 16 * 9, 0.f);
  EXPECT_EQ(make_image_conv_kernel(g, w.data(), nullptr, Activation{}, false), nullptr);
  g.in_channels = 3;
  g.input_channels_first = false;  // reads channels-last
  EXPECT_EQ(make_image_conv_kernel(g, w.data(), nullptr, Activation{}, false), nullptr);
  g.input_channels_first = true;
  g.dilations = {2, 2};
  EXPECT_EQ(make_image_conv_kernel(g, w.data(), nullptr, Activation{}, false), nullptr);
  Activation leaky;  // no in-register form
  leaky.kind = Activation::Kind::kLeakyRelu;
  g.dilations = {1, 1};
  EXPECT_EQ(make_image_conv_kernel(g, w.data(), nullptr, leaky, false), nullptr);
}

}  // namespace
}  // namespace hi::cpu
