// softmax_rows and layer_norm_rows (backends/cpu/kernels/row_kernels.cc) against a double-precision reference: rows of
// awkward lengths (shorter than a vector, between vectors, longer), with and without an added mask row (per row and
// shared), in place (both), and the special values: NaN, -inf, every value -inf.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "backends/cpu/kernels/kernels.h"
#include "kernel_test_util.h"

namespace hi::cpu {
namespace {

std::vector<float> reference_softmax(const std::vector<float>& x, int64_t rows, int64_t n, const float* add,
                                     int64_t add_stride) {
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> v(static_cast<size_t>(n));
    double mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) {
      v[static_cast<size_t>(j)] =
          static_cast<double>(x[static_cast<size_t>(r * n + j)]) + (add ? add[r * add_stride + j] : 0.0);
      mx = std::max(mx, v[static_cast<size_t>(j)]);
    }
    double sum = 0;
    for (double& e : v) sum += (e = std::exp(e - mx));
    for (int64_t j = 0; j < n; ++j)
      y[static_cast<size_t>(r * n + j)] = static_cast<float>(v[static_cast<size_t>(j)] / sum);
  }
  return y;
}

TEST(SoftmaxRows, MatchesTheReferenceOnAwkwardRows) {
  for (int64_t n : {1, 7, 16, 17, 33, 128, 301}) {
    const int64_t rows = 5;
    const std::vector<float> x = [&] {
      std::vector<float> v = random_values(static_cast<size_t>(rows * n), static_cast<uint32_t>(n));
      for (float& e : v) e *= 4.f;
      return v;
    }();
    std::vector<float> mask = random_values(static_cast<size_t>(rows * n), 7);
    for (size_t i = 0; i < mask.size(); i += 3) mask[i] = -10000.f;  // a padding mask's large negatives
    struct Case {
      const float* add;
      int64_t stride;
    };
    for (Case c : {Case{nullptr, 0}, Case{mask.data(), n}, Case{mask.data(), 0}}) {
      const std::vector<float> want = reference_softmax(x, rows, n, c.add, c.stride);
      std::vector<float> y(x.size(), -1.f);
      softmax_rows(x.data(), y.data(), rows, n, c.add, c.stride);
      std::vector<float> in_place = x;
      softmax_rows(in_place.data(), in_place.data(), rows, n, c.add, c.stride);
      for (size_t i = 0; i < y.size(); ++i) {
        ASSERT_NEAR(y[i], want[i], 1e-6f + 1e-5f * want[i]) << "n " << n << " element " << i << " stride " << c.stride;
        ASSERT_EQ(in_place[i], y[i]) << "n " << n << " element " << i;
      }
    }
  }
}

TEST(SoftmaxRows, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const int64_t n = 19;
  std::vector<float> x(static_cast<size_t>(3 * n), 0.5f);
  x[3] = -inf;                           // row 0: one -inf gives exactly 0 there
  x[static_cast<size_t>(n + 17)] = nan;  // row 1: a NaN (in the tail) makes the row NaN
  for (int64_t j = 0; j < n; ++j) x[static_cast<size_t>(2 * n + j)] = -inf;  // row 2: all -inf: NaN
  std::vector<float> y(x.size());
  softmax_rows(x.data(), y.data(), 3, n);
  EXPECT_EQ(y[3], 0.f);
  EXPECT_NEAR(y[0], 1.f / 18.f, 1e-6f);
  for (int64_t j = 0; j < n; ++j) {
    EXPECT_TRUE(std::isnan(y[static_cast<size_t>(n + j)])) << j;
    EXPECT_TRUE(std::isnan(y[static_cast<size_t>(2 * n + j)])) << j;
  }
}

TEST(LayerNormRows, MatchesTheReferenceOnAwkwardRows) {
  for (int64_t n : {1, 5, 16, 31, 100, 256, 259}) {
    const int64_t rows = 4;
    std::vector<float> x = random_values(static_cast<size_t>(rows * n), static_cast<uint32_t>(n) + 100);
    for (float& v : x) v = v * 3.f + 2.f;  // an offset mean, as hidden states have
    const std::vector<float> scale = random_values(static_cast<size_t>(n), 1),
                             bias = random_values(static_cast<size_t>(n), 2);
    for (const float* b : {bias.data(), static_cast<const float*>(nullptr)}) {
      std::vector<float> y(x.size(), NAN);
      layer_norm_rows(x.data(), scale.data(), b, y.data(), rows, n, 1e-5f);
      std::vector<float> in_place = x;
      layer_norm_rows(in_place.data(), scale.data(), b, in_place.data(), rows, n, 1e-5f);
      ASSERT_EQ(in_place, y) << "n " << n;
      for (int64_t r = 0; r < rows; ++r) {
        double mean = 0, sq = 0;
        for (int64_t j = 0; j < n; ++j) mean += x[static_cast<size_t>(r * n + j)];
        mean /= static_cast<double>(n);
        for (int64_t j = 0; j < n; ++j) sq += std::pow(x[static_cast<size_t>(r * n + j)] - mean, 2);
        const double inv_std = 1.0 / std::sqrt(sq / static_cast<double>(n) + 1e-5);
        for (int64_t j = 0; j < n; ++j) {
          const size_t i = static_cast<size_t>(r * n + j);
          const double want = (x[i] - mean) * inv_std * scale[static_cast<size_t>(j)] + (b ? b[j] : 0.0);
          ASSERT_NEAR(y[i], want, 2e-5 * (1 + std::fabs(want)))
              << "n " << n << " at " << r << "," << j << (b ? " bias" : "");
        }
      }
    }
  }
}

}  // namespace
}  // namespace hi::cpu
