// The bfloat16 kernels for --precision bf16 (backends/cpu/kernels/packed_gemm_bf16.cc, the implicit product of
// backends/cpu/kernels/bf16_conv.cc, the bfloat16 forms of FusedMatMul's product and of Winograd): the rounding against
// hand-computed bit patterns; the products against a plain loop in double over the same bfloat16-rounded inputs (so
// only the float32 summation order differs); Winograd, which rounds its transformed inputs and weights, against the
// exact convolution within a bound on bfloat16's rounding of each output's terms.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

#include "cpu/kernel_test_util.h"
#include "backends/cpu/kernels/kernels.h"
#include "backends/cpu/kernels/packed_gemm_bf16.h"

namespace hi::cpu {
namespace {

float round_bf16(float x) { return from_bf16(to_bf16(x)); }

std::vector<float> rounded(std::vector<float> v) {
  for (float& x : v) x = round_bf16(x);
  return v;
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(to_bf16(1.f), 0x3F80);
  EXPECT_EQ(to_bf16(-2.f), 0xC000);
  EXPECT_EQ(to_bf16(1.f + 0x1p-8f), 0x3F80);             // halfway, 0x3F80 even: down
  EXPECT_EQ(to_bf16(1.f + 3 * 0x1p-8f), 0x3F82);         // halfway, 0x3F81 odd: up
  EXPECT_EQ(to_bf16(1.f + 0x1p-8f + 0x1p-20f), 0x3F81);  // past halfway: up
  EXPECT_EQ(to_bf16(-(1.f + 0x1p-8f + 0x1p-20f)), 0xBF81);
  EXPECT_EQ(to_bf16(INFINITY), 0x7F80);
  EXPECT_EQ(to_bf16(FLT_MAX), 0x7F80);  // rounds past the largest bfloat16: infinity
  EXPECT_TRUE(std::isnan(from_bf16(to_bf16(NAN))));
  EXPECT_TRUE(std::isnan(from_bf16(to_bf16(-NAN))));
  EXPECT_EQ(to_bf16(0x1p-130f), 0x0008);  // subnormals kept (2^-126 x 2^-4)
  EXPECT_EQ(from_bf16(0x4049), 3.140625f);
}

TEST(Bf16, ConvertRowsMatchesScalarAndZeroPads) {
  if (!bf16_kernels_available()) GTEST_SKIP() << "no AVX512_BF16 on this CPU: the bfloat16 kernels are not made";
  const int64_t rows = 3, cols = 37, lds = 40, ldd = 50;
  auto src = random_values(static_cast<size_t>(rows * lds), 5);
  src[3] = NAN;
  src[4] = -INFINITY;
  src[5] = 1.f + 0x1p-8f;
  std::vector<uint16_t> dst(static_cast<size_t>(rows * ldd), 0xFFFF);
  convert_rows_to_bf16(src.data(), lds, rows, cols, dst.data(), ldd);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < ldd; ++c) {
      const uint16_t got = dst[static_cast<size_t>(r * ldd + c)];
      if (c >= cols) {
        EXPECT_EQ(got, 0) << r << "," << c;
        continue;
      }
      const float x = src[static_cast<size_t>(r * lds + c)];
      if (std::isnan(x)) EXPECT_TRUE(std::isnan(from_bf16(got)));
      else EXPECT_EQ(got, to_bf16(x)) << r << "," << c << " " << x;
    }
}

// packed_gemm_bf16 on its own: awkward m, odd k (padded to a pair), n off the 16-column vectors.
TEST(Bf16, PackedProductMatchesAPlainLoop) {
  if (!bf16_kernels_available()) GTEST_SKIP() << "no AVX512_BF16 on this CPU: the bfloat16 kernels are not made";
  struct Case {
    int64_t m, k, n;
    Activation::Kind act;
    bool residual;
  };
  const Case cases[] = {{1, 1, 1, Activation::Kind::kNone, false},
                        {13, 3, 17, Activation::Kind::kRelu, true},
                        {37, 70, 100, Activation::Kind::kGelu, false},
                        {25, 33, 65, Activation::Kind::kNone, true},
                        {6, 256, 80, Activation::Kind::kClip, false}};
  uint32_t seed = 20;
  for (const Case& c : cases) {
    Activation act;
    act.kind = c.act;
    act.alpha = -0.5f;
    act.beta = 0.75f;
    const auto a = rounded(random_values(static_cast<size_t>(c.m * c.k), seed++));
    const auto w = rounded(random_values(static_cast<size_t>(c.k * c.n), seed++));
    const auto b = random_values(static_cast<size_t>(c.n), seed++);
    const auto z = random_values(static_cast<size_t>(c.m * c.n), seed++);
    PackedWeightsBf16 packed;
    packed.pack(w.data(), c.k, c.n, c.n, 1, b.data());
    ASSERT_EQ(packed.k % 2, 0);
    std::vector<uint16_t> a16(static_cast<size_t>(c.m * packed.k));
    convert_rows_to_bf16(a.data(), c.k, c.m, c.k, a16.data(), packed.k);
    std::vector<float> y(static_cast<size_t>(c.m * c.n), NAN);
    packed_gemm_bf16(a16.data(), packed.k, c.m, packed.slice(0), c.n, y.data(), c.n, c.residual ? z.data() : nullptr,
                     c.n, act);
    for (int64_t r = 0; r < c.m; ++r)
      for (int64_t j = 0; j < c.n; ++j) {
        double acc = b[static_cast<size_t>(j)], magnitude = std::fabs(acc);
        for (int64_t i = 0; i < c.k; ++i) {
          const double term = double(a[static_cast<size_t>(r * c.k + i)]) * w[static_cast<size_t>(i * c.n + j)];
          acc += term;
          magnitude += std::fabs(term);
        }
        if (c.residual) acc += z[static_cast<size_t>(r * c.n + j)];
        const float want = act.apply(static_cast<float>(acc));
        ASSERT_NEAR(y[static_cast<size_t>(r * c.n + j)], want, 1e-6 * (1 + magnitude))
            << c.m << "x" << c.k << "x" << c.n << " " << act.name() << " at " << r << "," << j;
      }
  }
}

// The implicit bfloat16 product for any 2-D convolution: 1x1 (read as rows as they are, and with
// stride 2), 3x3 with stride 2, a 7x7 first layer over 3 channels (odd: each tap's channels are
// padded to a pair), dilation, asymmetric padding; many pixels and few weights (row blocks
// gathered as reached) and few pixels with many weights (all rows gathered first).
struct ImplicitCase {
  int64_t batch, c, o, h, w, kernel, stride, dilation;
  std::vector<int64_t> pads;  // top, left, bottom, right
  bool residual;
};

class Bf16ImplicitConv : public ::testing::TestWithParam<ImplicitCase> {};

TEST_P(Bf16ImplicitConv, MatchesAPlainLoop) {
  const ImplicitCase& c = GetParam();
  ConvGeometry g = conv_geometry(c.batch, c.c, c.o, c.h, c.w, c.kernel, c.kernel, c.stride, c.pads);
  g.dilations = {c.dilation, c.dilation};
  const int64_t span = (c.kernel - 1) * c.dilation + 1;
  g.out = {(c.h + c.pads[0] + c.pads[2] - span) / c.stride + 1, (c.w + c.pads[1] + c.pads[3] - span) / c.stride + 1};
  Activation relu;
  relu.kind = Activation::Kind::kRelu;
  const int64_t oh = g.out[0], ow = g.out[1], taps = c.kernel * c.kernel;
  const size_t out_size = static_cast<size_t>(c.batch * oh * ow * c.o);
  const auto x = random_values(static_cast<size_t>(c.batch * c.h * c.w * c.c), 31);
  const auto w = random_values(static_cast<size_t>(c.o * c.c * taps), 32);
  const auto b = random_values(static_cast<size_t>(c.o), 33);
  const auto z = random_values(out_size, 34);
  auto kernel = make_bf16_conv_kernel(g, w.data(), b.data(), relu, c.residual);
  if (!bf16_kernels_available()) {
    EXPECT_EQ(kernel, nullptr);
    GTEST_SKIP() << "no AVX512_BF16 on this CPU: the bfloat16 kernels are not made";
  }
  ASSERT_NE(kernel, nullptr);
  std::vector<float> y(out_size, NAN);
  ASSERT_TRUE(kernel->run(x.data(), c.residual ? z.data() : nullptr, y.data()).is_ok());
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t o = 0; o < c.o; ++o) {
          const size_t at = static_cast<size_t>(((n * oh + oy) * ow + ox) * c.o + o);
          double acc = b[static_cast<size_t>(o)] + (c.residual ? z[at] : 0.0), magnitude = std::fabs(acc);
          for (int64_t ky = 0; ky < c.kernel; ++ky)
            for (int64_t kx = 0; kx < c.kernel; ++kx) {
              const int64_t iy = oy * c.stride - c.pads[0] + ky * c.dilation,
                            ix = ox * c.stride - c.pads[1] + kx * c.dilation;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              for (int64_t ci = 0; ci < c.c; ++ci) {
                const double term = double(round_bf16(x[static_cast<size_t>(((n * c.h + iy) * c.w + ix) * c.c + ci)])) *
                                    round_bf16(w[static_cast<size_t>((o * c.c + ci) * taps + ky * c.kernel + kx)]);
                acc += term;
                magnitude += std::fabs(term);
              }
            }
          ASSERT_NEAR(y[at], relu.apply(static_cast<float>(acc)), 1e-6 * (1 + magnitude))
              << "at " << n << "," << oy << "," << ox << "," << o;
        }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Bf16ImplicitConv,
    ::testing::Values(ImplicitCase{2, 19, 37, 9, 11, 1, 1, 1, {0, 0, 0, 0}, true},   // 1x1, rows as they are
                      ImplicitCase{1, 70, 130, 2, 3, 1, 1, 1, {0, 0, 0, 0}, false},  // few rows, many weights
                      ImplicitCase{2, 24, 40, 9, 10, 1, 2, 1, {0, 0, 0, 0}, true},   // 1x1 stride 2
                      ImplicitCase{1, 33, 20, 11, 9, 3, 2, 1, {1, 1, 1, 1}, false},  // 3x3 stride 2
                      ImplicitCase{2, 3, 16, 15, 13, 7, 2, 1, {3, 3, 3, 3}, false},  // first layer, odd C
                      ImplicitCase{1, 8, 17, 10, 10, 3, 1, 2, {2, 0, 1, 2}, true},   // dilated, asymmetric
                      ImplicitCase{1, 1, 1, 1, 1, 3, 1, 1, {1, 1, 1, 1}, false}));

TEST(Bf16ImplicitConv, RefusesWhatItDoesNotDo) {
  const ConvGeometry g = conv_geometry(1, 16, 16, 8, 8, 3, 3, 1, {1, 1, 1, 1});
  const std::vector<float> w(16 * 16 * 9, 0.f);
  ConvGeometry grouped = g;
  grouped.groups = 2;
  EXPECT_EQ(make_bf16_conv_kernel(grouped, w.data(), nullptr, Activation{}, false), nullptr);
  ConvGeometry first = g;
  first.channels_last = false;
  EXPECT_EQ(make_bf16_conv_kernel(first, w.data(), nullptr, Activation{}, false), nullptr);
  Activation leaky;
  leaky.kind = Activation::Kind::kLeakyRelu;
  EXPECT_EQ(make_bf16_conv_kernel(g, w.data(), nullptr, leaky, false), nullptr);
}

// FusedMatMul's product in bfloat16: many rows and few weights (row blocks rounded as reached),
// few rows with many weights (all of A first), odd k (padded to a pair), n off the vectors.
TEST(Bf16, MatMulMatchesAPlainLoop) {
  struct Case {
    int64_t rows, k, n;
    bool residual;
  };
  for (const Case& c : {Case{300, 33, 40, true}, Case{7, 257, 300, false}, Case{1, 1, 1, false}}) {
    Activation gelu;
    gelu.kind = Activation::Kind::kGelu;
    const auto a = random_values(static_cast<size_t>(c.rows * c.k), 51);
    const auto w = random_values(static_cast<size_t>(c.k * c.n), 52);
    const auto b = random_values(static_cast<size_t>(c.n), 53);
    const auto z = random_values(static_cast<size_t>(c.rows * c.n), 54);
    auto kernel =
        make_packed_matmul_kernel(c.rows, c.k, c.n, w.data(), b.data(), gelu, c.residual, Precision::kBFloat16);
    if (!bf16_kernels_available()) {
      EXPECT_EQ(kernel, nullptr);
      GTEST_SKIP() << "no AVX512_BF16 on this CPU: the bfloat16 kernels are not made";
    }
    ASSERT_NE(kernel, nullptr);
    EXPECT_NE(kernel->describe().find("BF16"), std::string::npos) << kernel->describe();
    std::vector<float> y(static_cast<size_t>(c.rows * c.n), NAN);
    ASSERT_TRUE(kernel->run(a.data(), c.residual ? z.data() : nullptr, y.data()).is_ok());
    for (int64_t r = 0; r < c.rows; ++r)
      for (int64_t j = 0; j < c.n; ++j) {
        double acc = b[static_cast<size_t>(j)] + (c.residual ? z[static_cast<size_t>(r * c.n + j)] : 0.0),
               magnitude = std::fabs(acc);
        for (int64_t i = 0; i < c.k; ++i) {
          const double term =
              double(round_bf16(a[static_cast<size_t>(r * c.k + i)])) * round_bf16(w[static_cast<size_t>(i * c.n + j)]);
          acc += term;
          magnitude += std::fabs(term);
        }
        ASSERT_NEAR(y[static_cast<size_t>(r * c.n + j)], gelu.apply(static_cast<float>(acc)), 1e-6 * (1 + magnitude))
            << c.rows << "x" << c.k << "x" << c.n << " at " << r << "," << j;
      }
  }
}

struct WinogradCase {
  int64_t batch, c, o, h, w, pad;
  bool residual;
};

class Bf16Winograd : public ::testing::TestWithParam<WinogradCase> {};

// Each transformed input (a sum of up to 4 inputs, then of up to 4 of those) and transformed
// weight is rounded to bfloat16, a relative error of 2^-9 each; an output's error is then about
// 2^-8 times the root of the sum of its squared terms, times the transforms' mixing (a few). The
// bound allows 2^-5 times that root: a missing or misplaced tap (a ninth of the terms) is ~1/3.
TEST_P(Bf16Winograd, MatchesTheExactConvolutionWithinBf16Rounding) {
  const WinogradCase& c = GetParam();
  const ConvGeometry g = conv_geometry(c.batch, c.c, c.o, c.h, c.w, 3, 3, 1, {c.pad, c.pad, c.pad, c.pad});
  const auto x = random_values(static_cast<size_t>(c.batch * c.h * c.w * c.c), 41);
  const auto w = random_values(static_cast<size_t>(c.o * c.c * 9), 42);
  const auto b = random_values(static_cast<size_t>(c.o), 43);
  const int64_t oh = g.out[0], ow = g.out[1];
  const size_t out_size = static_cast<size_t>(c.batch * oh * ow * c.o);
  const auto z = random_values(out_size, 44);
  auto kernel = make_winograd_conv_kernel(g, w.data(), b.data(), Activation{}, c.residual, Precision::kBFloat16);
  if (!bf16_kernels_available()) {
    EXPECT_EQ(kernel, nullptr);
    GTEST_SKIP() << "no AVX512_BF16 on this CPU: the bfloat16 kernels are not made";
  }
  ASSERT_NE(kernel, nullptr);
  std::vector<float> y(out_size, NAN);
  ASSERT_TRUE(kernel->run(x.data(), c.residual ? z.data() : nullptr, y.data()).is_ok());
  double worst = 0;
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t o = 0; o < c.o; ++o) {
          double acc = b[static_cast<size_t>(o)], squares = 0;
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t iy = oy - c.pad + ky, ix = ox - c.pad + kx;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              for (int64_t ci = 0; ci < c.c; ++ci) {
                const double term = double(x[static_cast<size_t>(((n * c.h + iy) * c.w + ix) * c.c + ci)]) *
                                    w[static_cast<size_t>((o * c.c + ci) * 9 + ky * 3 + kx)];
                acc += term;
                squares += term * term;
              }
            }
          const size_t at = static_cast<size_t>(((n * oh + oy) * ow + ox) * c.o + o);
          if (c.residual) acc += z[at];
          const double bound = 0x1p-5 * std::sqrt(squares) + 1e-5 * (1 + std::fabs(acc));
          ASSERT_NEAR(y[at], acc, bound) << "at " << n << "," << oy << "," << ox << "," << o;
          worst = std::max(worst, std::fabs(y[at] - acc) / bound);
        }
  RecordProperty("worst_error_over_bound", std::to_string(worst));
}

INSTANTIATE_TEST_SUITE_P(Shapes, Bf16Winograd,
                         ::testing::Values(WinogradCase{1, 64, 64, 14, 14, 1, false},  // ResNet-like
                                           WinogradCase{2, 5, 7, 9, 11, 1, true},      // odd channels, partial tiles
                                           WinogradCase{1, 17, 33, 6, 6, 0, false},    // no padding
                                           WinogradCase{3, 16, 20, 3, 5, 2, true},     // pad 2, tiny image
                                           WinogradCase{1, 130, 48, 7, 7, 1, true},    // 7x7 like ResNet's last stage
                                           WinogradCase{1, 1, 1, 1, 1, 1, false}));

}  // namespace
}  // namespace hi::cpu
