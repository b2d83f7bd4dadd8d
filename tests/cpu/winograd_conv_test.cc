// The own Winograd F(2x2, 3x3) convolution (backends/cpu/kernels/winograd_conv.cc) against a plain loop in double:
// channel counts off the 16-lane vectors, output sizes that leave partial 2x2 tiles, padding 0-2,
// batches, residual and activations. Winograd's transforms round differently from a direct sum;
// the tolerance is 1e-5 of the largest pre-activation output.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "backends/cpu/kernels/kernels.h"
#include "cpu/kernel_test_util.h"

namespace hi::cpu {
namespace {

struct Case {
  int64_t batch, c, o, h, w, pad;
  Activation::Kind act;
  bool residual;
};

class WinogradConv : public ::testing::TestWithParam<Case> {};

TEST_P(WinogradConv, MatchesAPlainLoop) {
  const Case& c = GetParam();
  const ConvGeometry g = conv_geometry(c.batch, c.c, c.o, c.h, c.w, 3, 3, 1, {c.pad, c.pad, c.pad, c.pad});
  Activation act;
  act.kind = c.act;
  act.alpha = -1.f;
  act.beta = 1.f;
  const auto x = random_values(static_cast<size_t>(c.batch * c.h * c.w * c.c), 1);
  const auto w = random_values(static_cast<size_t>(c.o * c.c * 9), 2);
  const auto b = random_values(static_cast<size_t>(c.o), 3);
  const int64_t oh = g.out[0], ow = g.out[1];
  const size_t out_size = static_cast<size_t>(c.batch * oh * ow * c.o);
  const auto z = random_values(out_size, 4);
  auto kernel = make_winograd_conv_kernel(g, w.data(), b.data(), act, c.residual);
  if (!kernel) GTEST_SKIP() << "no AVX-512 on this CPU: the Winograd kernel is not made";
  std::vector<float> y(out_size, NAN);
  ASSERT_TRUE(kernel->run(x.data(), c.residual ? z.data() : nullptr, y.data()).is_ok());
  std::vector<double> want(out_size);
  double scale = 0;
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t o = 0; o < c.o; ++o) {
          double acc = b[static_cast<size_t>(o)];
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t iy = oy - c.pad + ky, ix = ox - c.pad + kx;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              for (int64_t ci = 0; ci < c.c; ++ci)
                acc += double(x[static_cast<size_t>(((n * c.h + iy) * c.w + ix) * c.c + ci)]) *
                       w[static_cast<size_t>((o * c.c + ci) * 9 + ky * 3 + kx)];
            }
          const size_t at = static_cast<size_t>(((n * oh + oy) * ow + ox) * c.o + o);
          if (c.residual) acc += z[at];
          want[at] = act.apply(static_cast<float>(acc));
          scale = std::max(scale, std::fabs(acc));  // before the activation: Clip can hide the magnitude
        }
  for (size_t i = 0; i < out_size; ++i) ASSERT_NEAR(y[i], want[i], 1e-5 * std::max(1.0, scale)) << "at " << i;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, WinogradConv,
    ::testing::Values(Case{1, 64, 64, 14, 14, 1, Activation::Kind::kRelu, false},  // ResNet-like
                      Case{2, 5, 7, 9, 11, 1, Activation::Kind::kNone, true},      // partial tiles
                      Case{1, 17, 33, 6, 6, 0, Activation::Kind::kClip, false},    // no padding
                      Case{3, 16, 20, 3, 5, 2, Activation::Kind::kGelu, true},     // pad 2, tiny image
                      Case{1, 130, 48, 7, 7, 1, Activation::Kind::kRelu, true},    // 7x7 like ResNet's last stage
                      Case{1, 1, 1, 1, 1, 1, Activation::Kind::kNone, false}));

TEST(WinogradConv, RefusesWhatItDoesNotDo) {
  const ConvGeometry g = conv_geometry(1, 16, 16, 8, 8, 3, 3, 1, {1, 1, 1, 1});
  const std::vector<float> w(16 * 16 * 9, 0.f);
  ConvGeometry strided = g;
  strided.strides = {2, 2};
  strided.out = {4, 4};
  EXPECT_EQ(make_winograd_conv_kernel(strided, w.data(), nullptr, Activation{}, false), nullptr);
  ConvGeometry grouped = g;
  grouped.groups = 2;
  EXPECT_EQ(make_winograd_conv_kernel(grouped, w.data(), nullptr, Activation{}, false), nullptr);
  ConvGeometry five = g;
  five.kernel = {5, 5};
  EXPECT_EQ(make_winograd_conv_kernel(five, w.data(), nullptr, Activation{}, false), nullptr);
  ConvGeometry first = g;
  first.channels_last = false;
  EXPECT_EQ(make_winograd_conv_kernel(first, w.data(), nullptr, Activation{}, false), nullptr);
}

}  // namespace
}  // namespace hi::cpu
