// The in-register activations of the own AVX-512 kernels (backends/cpu/kernels/avx512_util.h) and the AVX2
// Sigmoid and Tanh (avx2_activation.cc) against the scalar reference (Activation::apply, libm's exp,
// erf and tanh) over [-30, 30] and at the extremes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "backends/cpu/kernels/avx2_activation.h"
#include "backends/cpu/kernels/avx512_util.h"

namespace hi::cpu {
namespace {

#ifdef HI_HAVE_AVX512_KERNELS
HI_AVX512 void activate_all(const Activation& act, const std::vector<float>& x, std::vector<float>* y) {
  y->resize(x.size());
  for (size_t i = 0; i + 16 <= x.size(); i += 16)
    _mm512_storeu_ps(y->data() + i, activate(_mm512_loadu_ps(x.data() + i), act));
}
#endif

TEST(VectorActivation, MatchesTheScalarReference) {
#ifndef HI_HAVE_AVX512_KERNELS
  GTEST_SKIP() << "built without the AVX-512 kernels";
#else
  if (!avx512_kernels_available()) GTEST_SKIP() << "no AVX-512 on this CPU";
  std::vector<float> x;
  for (int i = -30000; i < 30000; ++i) x.push_back(static_cast<float>(i) * 1e-3f);
  for (float v : {0.f, -0.f, 1e-30f, -1e-30f, 1e-6f, -1e-6f, 87.f, -87.f, 88.5f, -88.5f, 100.f, -100.f, 1e30f, -1e30f})
    x.push_back(v);
  while (x.size() % 16) x.push_back(0.5f);
  using K = Activation::Kind;
  for (K kind : {K::kNone, K::kRelu, K::kClip, K::kSigmoid, K::kTanh, K::kGelu, K::kGeluTanh}) {
    Activation act;
    act.kind = kind;
    act.alpha = -1.5f;
    act.beta = 6.f;
    ASSERT_TRUE(vector_activation_supported(act)) << act.name();
    std::vector<float> y;
    activate_all(act, x, &y);
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = act.apply(x[i]);
      ASSERT_NEAR(y[i], want, 1e-6 + 2e-6 * std::fabs(want)) << act.name() << "(" << x[i] << ")";
    }
  }
  for (K kind : {K::kLeakyRelu, K::kHardSigmoid, K::kHardSwish}) {
    Activation act;
    act.kind = kind;
    EXPECT_FALSE(vector_activation_supported(act)) << act.name();
  }
#endif
}

// Near 0 tanh must keep its relative accuracy, not only an absolute 1e-6: Mish's tail multiplies
// x by tanh(softplus(x)) ~ e^x, and the ONNX conformance data checks it to 1e-3 of tiny values.
TEST(VectorActivation, TanhIsRelativelyAccurateNearZero) {
#ifndef HI_HAVE_AVX512_KERNELS
  GTEST_SKIP() << "built without the AVX-512 kernels";
#else
  if (!avx512_kernels_available()) GTEST_SKIP() << "no AVX-512 on this CPU";
  std::vector<float> x;
  for (float v = 1e-9f; v < 2.f; v *= 1.07f) {
    x.push_back(v);
    x.push_back(-v);
  }
  while (x.size() % 16) x.push_back(0.25f);
  Activation act;
  act.kind = Activation::Kind::kTanh;
  std::vector<float> y;
  activate_all(act, x, &y);
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::tanh(static_cast<double>(x[i]));
    ASSERT_NEAR(y[i], want, 1e-6 * std::fabs(want)) << "tanh(" << x[i] << ")";
  }
#endif
}

// Without AVX-512, Sigmoid and Tanh run in AVX2 registers (backends/cpu/kernels/avx2_activation.cc):
// the same bounds against the scalar reference, every tail length, NaN and the infinities.
TEST(VectorActivation, Avx2SigmoidAndTanhMatchTheScalarReference) {
  Activation probe;
  probe.kind = Activation::Kind::kTanh;
  if (!avx2_activation_available(probe)) GTEST_SKIP() << "no AVX2 and FMA on this CPU";
  std::vector<float> x;
  for (int i = -30000; i < 30000; ++i) x.push_back(static_cast<float>(i) * 1e-3f);
  for (float v = 1e-9f; v < 2.f; v *= 1.07f) {
    x.push_back(v);
    x.push_back(-v);
  }
  for (float v :
       {0.f, -0.f, 1e-30f, -1e-30f, 87.f, -87.f, 88.5f, -88.5f, 100.f, -100.f, 1e30f, -1e30f, INFINITY, -INFINITY})
    x.push_back(v);
  for (auto kind : {Activation::Kind::kSigmoid, Activation::Kind::kTanh}) {
    Activation act;
    act.kind = kind;
    ASSERT_TRUE(avx2_activation_available(act));
    for (size_t length : {x.size(), size_t{1}, size_t{7}, size_t{9}, size_t{15}}) {  // tails of 0 to 7 lanes
      std::vector<float> y(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(length));
      activate_avx2(y.data(), static_cast<int64_t>(y.size()), act);
      for (size_t i = 0; i < y.size(); ++i) {
        const double want =
            kind == Activation::Kind::kTanh ? std::tanh(double(x[i])) : 1 / (1 + std::exp(-double(x[i])));
        const double tolerance = kind == Activation::Kind::kTanh && std::fabs(x[i]) < 0.4f
                                     ? 1e-6 * std::fabs(want)  // relative near 0 (Mish's tail)
                                     : 1e-6 + 2e-6 * std::fabs(want);
        ASSERT_NEAR(y[i], want, tolerance) << act.name() << "(" << x[i] << ") at length " << length;
      }
    }
    std::vector<float> nan = {NAN, 1.f, NAN};
    activate_avx2(nan.data(), 3, act);
    EXPECT_TRUE(std::isnan(nan[0]) && std::isnan(nan[2]) && !std::isnan(nan[1])) << act.name();
  }
  Activation relu;
  relu.kind = Activation::Kind::kRelu;
  EXPECT_FALSE(avx2_activation_available(relu));
}

}  // namespace
}  // namespace hi::cpu
