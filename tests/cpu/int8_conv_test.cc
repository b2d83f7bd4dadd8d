// The int8 implicit product (backends/cpu/kernels/int8_conv.cc) against QLinearConv's arithmetic written out
// here: int32 sums of (x - x_zero_point) x w plus bias, times the float32 multiplier in double,
// rounded half to even, plus y's zero point, saturated. Equal code for code: uint8 and int8 in
// and out, zero points away from 0, a fused Relu, per-channel multipliers, padding, strides,
// dilation, channel counts off the 4-byte quads, both ways of sharing the work.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cpu/kernel_test_util.h"
#include "backends/cpu/kernels/kernels.h"

namespace hi::cpu {
namespace {

struct Case {
  int64_t batch, c, o, h, w, kernel, stride, dilation;
  std::vector<int64_t> pads;
  bool x_signed, y_signed, relu, bias;
};

class Int8Conv : public ::testing::TestWithParam<Case> {};

TEST_P(Int8Conv, MatchesQLinearConvArithmetic) {
  const Case& c = GetParam();
  ConvGeometry g = conv_geometry(c.batch, c.c, c.o, c.h, c.w, c.kernel, c.kernel, c.stride, c.pads);
  g.dilations = {c.dilation, c.dilation};
  const int64_t span = (c.kernel - 1) * c.dilation + 1;
  g.out = {(c.h + c.pads[0] + c.pads[2] - span) / c.stride + 1, (c.w + c.pads[1] + c.pads[3] - span) / c.stride + 1};
  const int64_t oh = g.out[0], ow = g.out[1], taps = c.kernel * c.kernel;
  std::mt19937 gen(17);
  std::uniform_int_distribution<int> byte(0, 255), weight(-128, 127), wide(-20000, 20000);
  std::vector<uint8_t> x(static_cast<size_t>(c.batch * c.h * c.w * c.c));
  for (auto& v : x) v = static_cast<uint8_t>(byte(gen));
  std::vector<int8_t> w(static_cast<size_t>(c.o * c.c * taps));
  for (auto& v : w) v = static_cast<int8_t>(weight(gen));
  std::vector<int32_t> bias(static_cast<size_t>(c.o));
  for (auto& v : bias) v = wide(gen);
  QuantizedConvParams q;
  q.geometry = g;
  q.x_signed = c.x_signed;
  q.y_signed = c.y_signed;
  q.x_zero_point = c.x_signed ? -7 : 131;
  q.y_zero_point = c.y_signed ? 5 : 100;
  q.weights = w.data();
  q.bias = c.bias ? bias.data() : nullptr;
  q.relu = c.relu;
  for (int64_t o = 0; o < c.o; ++o)
    q.multipliers.push_back(0.02f / static_cast<float>(c.c * taps) * (1.f + 0.1f * static_cast<float>(o % 5)));
  auto kernel = make_int8_conv_kernel(q);
  if (!int8_kernels_available()) {
    EXPECT_EQ(kernel, nullptr);
    GTEST_SKIP() << "no AVX512_VNNI on this CPU: the int8 kernels are not made";
  }
  ASSERT_NE(kernel, nullptr);
  std::vector<uint8_t> y(static_cast<size_t>(c.batch * oh * ow * c.o), 0xAA);
  ASSERT_TRUE(kernel->run(x.data(), y.data()).is_ok());
  auto x_value = [&](size_t i) { return c.x_signed ? int32_t{static_cast<int8_t>(x[i])} : int32_t{x[i]}; };
  const int32_t lo = c.y_signed ? -128 : 0, hi = c.y_signed ? 127 : 255;
  int saturated = 0;
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t o = 0; o < c.o; ++o) {
          int64_t acc = c.bias ? bias[static_cast<size_t>(o)] : 0;
          for (int64_t ky = 0; ky < c.kernel; ++ky)
            for (int64_t kx = 0; kx < c.kernel; ++kx) {
              const int64_t iy = oy * c.stride - c.pads[0] + ky * c.dilation,
                            ix = ox * c.stride - c.pads[1] + kx * c.dilation;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;  // padding: x_zero_point, which adds 0
              for (int64_t ci = 0; ci < c.c; ++ci)
                acc += int64_t{x_value(static_cast<size_t>(((n * c.h + iy) * c.w + ix) * c.c + ci)) - q.x_zero_point} *
                       w[static_cast<size_t>((o * c.c + ci) * taps + ky * c.kernel + kx)];
            }
          const double scaled = static_cast<double>(acc) * static_cast<double>(q.multipliers[static_cast<size_t>(o)]);
          int32_t want =
              static_cast<int32_t>(std::clamp(std::nearbyint(scaled) + q.y_zero_point, double(lo), double(hi)));
          if (c.relu) want = std::max(want, q.y_zero_point);
          saturated += want == lo || want == hi;
          const uint8_t code = y[static_cast<size_t>(((n * oh + oy) * ow + ox) * c.o + o)];
          const int32_t got = c.y_signed ? int32_t{static_cast<int8_t>(code)} : int32_t{code};
          ASSERT_EQ(got, want) << "at " << n << "," << oy << "," << ox << "," << o << " (sum " << acc << ")";
        }
  // The data must exercise the range, not sit at one end of it.
  if (y.size() > 4) {
    EXPECT_LT(saturated, static_cast<int>(y.size()) / 2);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Int8Conv,
    ::testing::Values(Case{2, 16, 37, 9, 11, 1, 1, 1, {0, 0, 0, 0}, false, false, false, true},  // 1x1 read in place
                      Case{
                          1, 70, 130, 2, 3, 1, 1, 1, {0, 0, 0, 0}, false, false, true, true},  // few rows, many weights
                      Case{2, 24, 40, 9, 10, 1, 2, 1, {0, 0, 0, 0}, true, true, false, true},  // int8, 1x1 stride 2
                      Case{1, 33, 20, 11, 9, 3, 2, 1, {1, 1, 1, 1}, false, false, true, false},  // 3x3 stride 2, C % 4
                      Case{2, 3, 16, 15, 13, 7, 2, 1, {3, 3, 3, 3}, false, true, false, true},  // first layer, u8 -> s8
                      Case{1, 8, 17, 10, 10, 3, 1, 2, {2, 0, 1, 2}, true, false, true, true},   // dilated, asymmetric
                      Case{1, 1, 1, 1, 1, 3, 1, 1, {1, 1, 1, 1}, false, false, false, true}));

}  // namespace
}  // namespace hi::cpu
