// DFT and STFT: hand-computed spectra, the radix-2 path against the plain sum, padding and
// truncation, onesided (RFFT), inverse and IRFFT, axes, dtypes, and the error paths. Expected
// values beyond the hand-computed ones come from `naive_dft` below, the defining sum written out.
#include <cmath>
#include <complex>
#include <numbers>

#include "ops/dft_util.h"
#include "ops/op_test_util.h"

namespace hi::test {
namespace {

using Complex = std::complex<double>;

// X[k] = sum_t x[t] exp(-+2 pi i k t / n) over x zero-padded or truncated to n; /n when inverse.
std::vector<Complex> naive_dft(std::vector<Complex> x, int64_t n, bool inverse) {
  x.resize(static_cast<size_t>(n));
  std::vector<Complex> out(static_cast<size_t>(n));
  const double sign = inverse ? 1 : -1;
  for (int64_t k = 0; k < n; ++k) {
    for (int64_t t = 0; t < n; ++t)
      out[static_cast<size_t>(k)] +=
          x[static_cast<size_t>(t)] * std::polar(1.0, sign * 2 * std::numbers::pi * double(k * t) / double(n));
    if (inverse) out[static_cast<size_t>(k)] /= double(n);
  }
  return out;
}

// [..., 2] float tensor from complex values.
Tensor complex_tensor(Shape shape, const std::vector<Complex>& v) {
  std::vector<float> f;
  for (const Complex& c : v) f.insert(f.end(), {float(c.real()), float(c.imag())});
  shape.push_back(2);
  return f32(shape, f);
}

Tensor run1(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << " (opset " << c.opset << "): " << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

void expect_error(const OpCase& c, StatusCode code, const std::string& needle) {
  for (bool constants : {false, true}) {
    auto r = run_op_once(c, constants);
    ASSERT_FALSE(r.is_ok()) << c.op_type << " should fail (constants=" << constants << ")";
    EXPECT_EQ(r.status().code(), code) << r.status().to_string();
    EXPECT_NE(r.status().message().find(needle), std::string::npos)
        << "'" << needle << "' not in: " << r.status().message();
  }
}

const std::vector<Complex> kSignal = {1, 2, 3, 4};
// DFT of [1, 2, 3, 4] by hand: [10, -2+2i, -2, -2-2i].
const std::vector<Complex> kSpectrum = {10, {-2, 2}, -2, {-2, -2}};

// For errors that depend on an input's value: found at build time when the input is a constant
// (InvalidModel), at run time otherwise (InvalidArgument); the message is the same.
void expect_value_error(const OpCase& c, const std::string& needle) {
  for (bool constants : {false, true}) {
    auto r = run_op_once(c, constants);
    ASSERT_FALSE(r.is_ok()) << c.op_type << " should fail (constants=" << constants << ")";
    EXPECT_NE(r.status().message().find(needle), std::string::npos)
        << "'" << needle << "' not in: " << r.status().message();
  }
}

// ---- the transform itself -------------------------------------------------------------------

TEST(DftUtil, Radix2MatchesThePlainSum) {
  for (size_t n : {1u, 2u, 8u, 64u, 256u}) {
    std::vector<Complex> a(n);
    for (size_t i = 0; i < n; ++i) a[i] = {std::sin(double(i) * 0.7), std::cos(double(i * i) * 0.3)};
    for (bool inverse : {false, true}) {
      std::vector<Complex> fast = a, slow = a;
      ops::dft_in_place(fast, inverse);
      ops::dft_naive(slow, inverse);
      for (size_t i = 0; i < n; ++i) EXPECT_NEAR(std::abs(fast[i] - slow[i]), 0.0, 1e-9 * double(n)) << n << " " << i;
    }
  }
}

// ---- DFT --------------------------------------------------------------------------------------

TEST(Dft, HandComputedSpectrumBothOpsets) {
  const Tensor x = f32({1, 4, 1}, {1, 2, 3, 4});
  const Tensor want = complex_tensor({1, 4}, kSpectrum);
  expect_tensor_near(run1({"DFT", "", 20, {}, {x}}), want);  // axis input omitted: -2
  expect_tensor_near(run1({"DFT", "", 20, {}, {x, Tensor(), i64({}, {1})}}), want);
  expect_tensor_near(run1({"DFT", "", 17, {}, {x}}), want);  // axis attribute default 1
  // Complex input, the same values.
  expect_tensor_near(run1({"DFT", "", 20, {}, {complex_tensor({1, 4}, kSignal)}}), want);
}

TEST(Dft, OddLengthsUseThePlainSum) {
  // A unit impulse at t=1 of length 5: X[k] = exp(-2 pi i k / 5).
  std::vector<Complex> want;
  for (int k = 0; k < 5; ++k) want.push_back(std::polar(1.0, -2 * std::numbers::pi * k / 5));
  expect_tensor_near(run1({"DFT", "", 20, {}, {f32({1, 5, 1}, {0, 1, 0, 0, 0})}}), complex_tensor({1, 5}, want), 1e-5,
                     1e-6);
}

TEST(Dft, DftLengthPadsAndTruncates) {
  const Tensor x = f32({1, 4, 1}, {1, 2, 3, 4});
  for (int64_t n : {2, 3, 6, 8}) {
    SCOPED_TRACE(n);
    expect_tensor_near(run1({"DFT", "", 20, {}, {x, i64({}, {n})}}),
                       complex_tensor({1, n}, naive_dft(kSignal, n, false)), 1e-5, 1e-5);
  }
}

TEST(Dft, OnesidedInverseAndIrfft) {
  const Tensor x = f32({1, 4, 1}, {1, 2, 3, 4});
  // RFFT keeps bins 0..n/2.
  expect_tensor_near(run1({"DFT", "", 20, {{"onesided", attr_int(1)}}, {x}}),
                     complex_tensor({1, 3}, {kSpectrum[0], kSpectrum[1], kSpectrum[2]}));
  // The inverse of the spectrum is the signal (imaginary parts 0).
  expect_tensor_near(run1({"DFT", "", 20, {{"inverse", attr_int(1)}}, {complex_tensor({1, 4}, kSpectrum)}}),
                     complex_tensor({1, 4}, kSignal), 1e-5, 1e-6);
  // IRFFT: 3 bins -> 4 real values by default.
  expect_tensor_near(run1({"DFT",
                           "",
                           20,
                           {{"inverse", attr_int(1)}, {"onesided", attr_int(1)}},
                           {complex_tensor({1, 3}, {kSpectrum[0], kSpectrum[1], kSpectrum[2]})}}),
                     f32({1, 4, 1}, {1, 2, 3, 4}), 1e-5, 1e-6);
  // IRFFT of odd length 5 from the 3 bins of [1, 2, 3, 4, 5]'s spectrum.
  const std::vector<Complex> five = {1, 2, 3, 4, 5};
  const std::vector<Complex> bins5 = naive_dft(five, 5, false);
  expect_tensor_near(run1({"DFT",
                           "",
                           20,
                           {{"inverse", attr_int(1)}, {"onesided", attr_int(1)}},
                           {complex_tensor({1, 3}, {bins5[0], bins5[1], bins5[2]}), i64({}, {5})}}),
                     f32({1, 5, 1}, {1, 2, 3, 4, 5}), 1e-5, 1e-5);
}

TEST(Dft, AxesOfAFourDimensionalInput) {
  // x[b, i, j] = b + 2i - j, shape [2, 3, 4, 1]; DFT along i (axis 1) and along j (axis 2).
  std::vector<float> v;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) v.push_back(float(b + 2 * i - j) + 0.25f * float(i * j));
  const Tensor x = f32({2, 3, 4, 1}, v);
  for (int64_t axis : {1, 2}) {
    SCOPED_TRACE(axis);
    const int64_t len = axis == 1 ? 3 : 4;
    std::vector<Complex> want(24);
    for (int b = 0; b < 2; ++b)
      for (int other = 0; other < (axis == 1 ? 4 : 3); ++other) {
        std::vector<Complex> line;
        for (int k = 0; k < len; ++k)
          line.push_back(v[static_cast<size_t>(axis == 1 ? (b * 3 + k) * 4 + other : (b * 3 + other) * 4 + k)]);
        const std::vector<Complex> spec = naive_dft(line, len, false);
        for (int k = 0; k < len; ++k)
          want[static_cast<size_t>(axis == 1 ? (b * 3 + k) * 4 + other : (b * 3 + other) * 4 + k)] = spec[size_t(k)];
      }
    const Tensor expected = complex_tensor({2, 3, 4}, want);
    expect_tensor_near(run1({"DFT", "", 17, {{"axis", attr_int(axis)}}, {x}}), expected, 1e-5, 1e-5);
    expect_tensor_near(run1({"DFT", "", 20, {}, {x, Tensor(), i64({}, {axis - 4})}}), expected, 1e-5, 1e-5);
  }
}

TEST(Dft, Float64AndFloat16) {
  Tensor xd = Tensor::empty(DType::kFloat64, {1, 4, 1}), xh = Tensor::empty(DType::kFloat16, {1, 4, 1});
  for (int i = 0; i < 4; ++i) {
    xd.data<double>()[i] = i + 1;
    xh.data<Float16>()[i] = Float16(float(i + 1));
  }
  const Tensor yd = run1({"DFT", "", 20, {}, {xd}});
  const Tensor yh = run1({"DFT", "", 20, {}, {xh}});
  ASSERT_EQ(yd.dtype(), DType::kFloat64);
  ASSERT_EQ(yh.dtype(), DType::kFloat16);
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(yd.data<double>()[2 * k], kSpectrum[size_t(k)].real(), 1e-12);
    EXPECT_NEAR(float(yh.data<Float16>()[2 * k + 1]), kSpectrum[size_t(k)].imag(), 1e-3);
  }
}

TEST(Dft, Errors) {
  const Tensor x = f32({1, 4, 1}, {1, 2, 3, 4});
  expect_value_error({"DFT", "", 20, {}, {x, Tensor(), i64({}, {-1})}}, "axis -1 is out of range");
  expect_error({"DFT", "", 17, {{"axis", attr_int(2)}}, {x}}, StatusCode::kInvalidModel, "axis 2 is out of range");
  expect_error({"DFT", "", 20, {}, {f32({1, 2, 3}, std::vector<float>(6, 0.f))}}, StatusCode::kInvalidModel,
               "must end in a dim of 1 (real) or 2 (complex), got 3");
  expect_value_error({"DFT", "", 20, {}, {x, i64({}, {0})}}, "dft_length must be >= 1");
  expect_error({"DFT", "", 20, {{"axis", attr_int(1)}}, {x}}, StatusCode::kInvalidModel, "not as an attribute");
  expect_error({"DFT", "", 20, {}, {i64({1, 2, 1}, {1, 2})}}, StatusCode::kUnsupported,
               "DFT (opset 20) does not support input type int64");
  expect_error({"DFT", "", 20, {{"inverse", attr_int(2)}}, {x}}, StatusCode::kInvalidModel, "'inverse' must be 0 or 1");
}

// ---- STFT -------------------------------------------------------------------------------------

// The expected STFT by frames of naive_dft.
Tensor stft_expected(const std::vector<Complex>& signal, int64_t step, const std::vector<double>& window,
                     bool onesided) {
  const int64_t len = int64_t(signal.size()), frame = int64_t(window.size());
  const int64_t frames = (len - frame) / step + 1, bins = onesided ? frame / 2 + 1 : frame;
  std::vector<Complex> out;
  for (int64_t f = 0; f < frames; ++f) {
    std::vector<Complex> piece;
    for (int64_t k = 0; k < frame; ++k) piece.push_back(signal[size_t(f * step + k)] * window[size_t(k)]);
    const std::vector<Complex> spec = naive_dft(piece, frame, false);
    out.insert(out.end(), spec.begin(), spec.begin() + bins);
  }
  return complex_tensor({1, frames, bins}, out);
}

TEST(Stft, FramesOfARealSignal) {
  std::vector<float> v;
  std::vector<Complex> c;
  for (int i = 0; i < 9; ++i) {
    v.push_back(std::sin(0.9f * float(i)) + 0.1f * float(i));
    c.push_back(v.back());
  }
  const Tensor x = f32({1, 9, 1}, v);
  // frame_length as input, rectangular window, onesided (default): (9-4)/2+1 = 3 frames of 3 bins.
  expect_tensor_near(run1({"STFT", "", 17, {}, {x, i64({}, {2}), Tensor(), i64({}, {4})}}),
                     stft_expected(c, 2, {1, 1, 1, 1}, true), 1e-5, 1e-5);
  // A window sets the frame length; two-sided output.
  expect_tensor_near(
      run1({"STFT", "", 17, {{"onesided", attr_int(0)}}, {x, i64({}, {3}), f32({5}, {0.1f, 0.5f, 1, 0.5f, 0.1f})}}),
      stft_expected(c, 3, {0.1f, 0.5f, 1, 0.5f, 0.1f}, false), 1e-5, 1e-5);
  // Neither: one frame over the whole signal.
  expect_tensor_near(run1({"STFT", "", 17, {}, {x, i64({}, {1})}}),
                     stft_expected(c, 1, std::vector<double>(9, 1.0), true), 1e-5, 1e-5);
}

TEST(Stft, ComplexSignal) {
  const std::vector<Complex> c = {{1, 0}, {0, 1}, {-1, 0.5}, {2, -1}, {0.5, 0.5}, {0, -2}};
  expect_tensor_near(run1({"STFT",
                           "",
                           17,
                           {{"onesided", attr_int(0)}},
                           {complex_tensor({1, 6}, c), i64({}, {2}), Tensor(), i64({}, {4})}}),
                     stft_expected(c, 2, {1, 1, 1, 1}, false), 1e-5, 1e-5);
}

TEST(Stft, Errors) {
  const Tensor x = f32({1, 8, 1}, std::vector<float>(8, 1.f));
  expect_error({"STFT", "", 17, {}, {x, i64({}, {2}), Tensor(), i64({}, {9})}}, StatusCode::kInvalidArgument,
               "frame_length must be in [1, 8]");
  expect_error({"STFT", "", 17, {}, {x, i64({}, {2}), f32({3}, {1, 1, 1}), i64({}, {4})}}, StatusCode::kInvalidArgument,
               "frame_length is 4 but the window has 3 values");
  expect_error({"STFT", "", 17, {}, {x, i64({}, {0}), Tensor(), i64({}, {4})}}, StatusCode::kInvalidArgument,
               "frame_step must be >= 1");
  expect_error({"STFT", "", 17, {}, {f32({8, 1}, std::vector<float>(8, 1.f)), i64({}, {2})}}, StatusCode::kInvalidModel,
               "STFT signal must be [batch, length, 1 or 2]");
}

}  // namespace
}  // namespace hi::test
