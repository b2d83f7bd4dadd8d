// Row kernels for the transformer ops: loops the compiler vectorises (no libm call inside),
// rows split across the threads.
#include <cmath>
#include <cstring>

#include "cpu/kernels.h"
#include "cpu/threading.h"

namespace hi::cpu {
namespace {

// exp(x) for float, to about 2 ulp over the range softmax uses: 2^n * p(r), x = n ln2 + r,
// |r| <= ln2 / 2, p the degree-6 Taylor polynomial. Inputs below -87 give 0.
inline float exp_approx(float x) {
  // Comparisons, not std::fmin/fmax: those are libm calls (NaN rules) and keep the loop scalar.
  // A NaN passes both and comes out NaN, as the reference's does.
  x = x < -87.f ? -87.f : x;
  x = x > 88.f ? 88.f : x;
  // Round x / ln2 to the nearest integer by adding 1.5 * 2^23: the integer lands in the low
  // mantissa bits, read back through the bit pattern (no float-to-int cast, which a NaN makes UB).
  const float shifted = x * 1.44269504088896341f + 12582912.f;
  uint32_t shifted_bits;  // unsigned: the arithmetic below wraps instead of overflowing on a NaN
  std::memcpy(&shifted_bits, &shifted, 4);
  const uint32_t ni = shifted_bits - 0x4B400000u;
  const float n = shifted - 12582912.f;
  const float r = x - n * 0.693145751953125f - n * 1.42860682030941723e-6f;
  float p = 1.f / 720.f;
  p = p * r + 1.f / 120.f;
  p = p * r + 1.f / 24.f;
  p = p * r + 1.f / 6.f;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  const uint32_t bits = (ni + 127u) << 23;
  float scale;
  std::memcpy(&scale, &bits, 4);
  return x <= -87.f ? 0.f : p * scale;
}

// One row each; compiled for AVX-512, AVX2 and baseline x86-64, picked at load time (the
// library itself is built for baseline x86-64 so that it runs on any machine).
#define HI_ROW_KERNEL __attribute__((target_clones("avx512f", "avx2", "default")))

HI_ROW_KERNEL void softmax_row(const float* xr, float* yr, int64_t n) {
  float mx = -INFINITY;
  for (int64_t j = 0; j < n; ++j) mx = std::max(mx, xr[j]);
  if (std::isinf(mx) && mx < 0) {  // every value -inf: the reference gives NaN (0/0)
    for (int64_t j = 0; j < n; ++j) yr[j] = NAN;
    return;
  }
  float sum = 0.f;
#pragma omp simd reduction(+ : sum)
  for (int64_t j = 0; j < n; ++j) {
    const float e = exp_approx(xr[j] - mx);
    yr[j] = e;
    sum += e;
  }
  const float inv = 1.f / sum;
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) yr[j] *= inv;
}

HI_ROW_KERNEL void layer_norm_row(const float* xr, const float* scale, const float* bias, float* yr, int64_t n,
                                  float epsilon) {
  float sum = 0.f;
#pragma omp simd reduction(+ : sum)
  for (int64_t j = 0; j < n; ++j) sum += xr[j];
  const float mean = sum / static_cast<float>(n);
  float sq = 0.f;
#pragma omp simd reduction(+ : sq)
  for (int64_t j = 0; j < n; ++j) sq += (xr[j] - mean) * (xr[j] - mean);
  const float inv_std = 1.f / std::sqrt(sq / static_cast<float>(n) + epsilon);
  if (bias) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - mean) * inv_std * scale[j] + bias[j];
  } else {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - mean) * inv_std * scale[j];
  }
}

}  // namespace

void softmax_rows(const float* x, float* y, int64_t rows, int64_t n) {
  parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) softmax_row(x + r * n, y + r * n, n);
  });
}

void layer_norm_rows(const float* x, const float* scale, const float* bias, float* y, int64_t rows, int64_t n,
                     float epsilon) {
  parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) layer_norm_row(x + r * n, scale, bias, y + r * n, n, epsilon);
  });
}

}  // namespace hi::cpu
