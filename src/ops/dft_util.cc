// See dft_util.h.
#include "ops/dft_util.h"

#include <cmath>
#include <numbers>
#include <utility>

namespace hi::ops {
namespace {

using Complex = std::complex<double>;

// exp(sign * 2 pi i k / n) for k in [0, n); k*t is reduced mod n by the callers so large
// products do not lose precision in the angle.
std::vector<Complex> twiddles(size_t n, bool inverse) {
  std::vector<Complex> w(n);
  const double sign = inverse ? 1.0 : -1.0;
  for (size_t k = 0; k < n; ++k) {
    const double angle = sign * 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
    w[k] = {std::cos(angle), std::sin(angle)};
  }
  return w;
}

// Iterative Cooley-Tukey: bit-reversal permutation, then log2(n) passes of butterflies.
void fft_radix2(std::vector<Complex>& a, bool inverse) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const std::vector<Complex> w = twiddles(n, inverse);
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t half = len / 2, stride = n / len;
    for (size_t start = 0; start < n; start += len)
      for (size_t k = 0; k < half; ++k) {
        const Complex u = a[start + k];
        const Complex v = a[start + k + half] * w[k * stride];
        a[start + k] = u + v;
        a[start + k + half] = u - v;
      }
  }
}

}  // namespace

void dft_naive(std::vector<Complex>& data, bool inverse) {
  const size_t n = data.size();
  const std::vector<Complex> w = twiddles(n, inverse);
  std::vector<Complex> out(n);
  for (size_t k = 0; k < n; ++k) {
    Complex sum = 0;
    for (size_t t = 0; t < n; ++t) sum += data[t] * w[(k * t) % n];
    out[k] = sum;
  }
  data = std::move(out);
}

void dft_in_place(std::vector<Complex>& data, bool inverse) {
  const size_t n = data.size();
  if (n <= 1) return;
  if ((n & (n - 1)) == 0) fft_radix2(data, inverse);
  else dft_naive(data, inverse);
}

}  // namespace hi::ops
