// Row kernels for the transformer ops: loops the compiler vectorises (no libm call inside),
// rows split across the threads.
#include <cmath>
#include <cstring>

#include "backends/cpu/kernels/avx2_activation.h"
#include "backends/cpu/kernels/avx512_util.h"
#include "backends/cpu/kernels/kernels.h"
#include "core/threading.h"

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

// One row; `add` (or null) is added to x first (an attention mask's row).
HI_ROW_KERNEL void softmax_row(const float* xr, const float* add, float* yr, int64_t n) {
  float mx = -INFINITY;
  for (int64_t j = 0; j < n; ++j) mx = std::max(mx, add ? xr[j] + add[j] : xr[j]);
  if (std::isinf(mx) && mx < 0) {  // every value -inf: the reference gives NaN (0/0)
    for (int64_t j = 0; j < n; ++j) yr[j] = NAN;
    return;
  }
  float sum = 0.f;
#pragma omp simd reduction(+ : sum)
  for (int64_t j = 0; j < n; ++j) {
    const float e = exp_approx((add ? xr[j] + add[j] : xr[j]) - mx);
    yr[j] = e;
    sum += e;
  }
  const float inv = 1.f / sum;
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) yr[j] *= inv;
}

#ifdef HI_HAVE_AVX512_KERNELS
// The same row with AVX-512 intrinsics: the loop above does not vectorise (its max keeps the
// reference's NaN rule, its exp has branches), and attention spends most of its time outside
// the products here otherwise. Same results: NaN ignored by the max and propagated by the exp,
// exactly 0 below e^-87, every value -inf giving NaN.
HI_AVX512 void softmax_row_avx512(const float* xr, const float* add, float* yr, int64_t n) {
  constexpr __mmask16 all = 0xFFFF;
  const int64_t full = n / kLanes * kLanes;
  const __mmask16 tail = static_cast<__mmask16>((1u << (n - full)) - 1);
  auto load = [&](int64_t j, __mmask16 m) HI_AVX512 {
    const __m512 v = _mm512_maskz_loadu_ps(m, xr + j);
    return add ? _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, add + j)) : v;
  };
  __m512 vmax = _mm512_set1_ps(-INFINITY);
  for (int64_t j = 0; j < full; j += kLanes) vmax = _mm512_maskz_max_ps(all, load(j, all), vmax);
  if (tail) vmax = _mm512_mask_max_ps(vmax, tail, load(full, tail), vmax);
  const float mx = max_lanes(vmax);
  if (std::isinf(mx) && mx < 0) {
    for (int64_t j = 0; j < n; ++j) yr[j] = NAN;
    return;
  }
  const __m512 m = _mm512_set1_ps(mx), floor = _mm512_set1_ps(-87.f);
  // d = x - max <= 0 needs no upper clamp, and lanes below -87 (-inf among them) are left out by
  // exp512_in_range's mask instead of clamped and then zeroed: 13 instructions a vector, not 17.
  auto exp_of = [&](int64_t j, __mmask16 lanes) HI_AVX512 {
    const __m512 d = _mm512_sub_ps(load(j, lanes), m);
    return exp512_in_range(_mm512_cmp_ps_mask(d, floor, _CMP_NLT_UQ), d);  // NaN kept: it comes out NaN
  };
  __m512 sum = _mm512_setzero_ps();
  for (int64_t j = 0; j < full; j += kLanes) {
    const __m512 e = exp_of(j, all);
    _mm512_storeu_ps(yr + j, e);
    sum = _mm512_add_ps(sum, e);
  }
  if (tail) {
    const __m512 e = _mm512_maskz_mov_ps(tail, exp_of(full, tail));
    _mm512_mask_storeu_ps(yr + full, tail, e);
    sum = _mm512_add_ps(sum, e);
  }
  const __m512 inv = _mm512_set1_ps(1.f / sum_lanes(sum));
  for (int64_t j = 0; j < full; j += kLanes) _mm512_storeu_ps(yr + j, _mm512_mul_ps(_mm512_loadu_ps(yr + j), inv));
  if (tail) _mm512_mask_storeu_ps(yr + full, tail, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, yr + full), inv));
}

HI_AVX512 void activate_avx512(float* y, int64_t n, const Activation& act) {
  // The kind picked once for the whole loop (through activate()'s switch per vector the GELU
  // after oneDNN's matmul ran 1.25x slower).
  with_activation_kind(act, [&](auto k) HI_AVX512 {
    constexpr Activation::Kind K = decltype(k)::value;
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) _mm512_storeu_ps(y + i, activate_as<K>(_mm512_loadu_ps(y + i), act));
    if (i < n) {
      const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1);
      _mm512_mask_storeu_ps(y + i, tail, activate_as<K>(_mm512_maskz_loadu_ps(tail, y + i), act));
    }
  });
}

// layer_norm_row with AVX-512 intrinsics, the same two passes (mean, then the squared deviations
// from it) in float. Each sum runs over four accumulators: the compiled loop kept one, so a
// 256-wide row waited on a chain of 16 dependent adds per pass and the rows were latency-bound
// (1024 x 256 on two cores: 29 us).
HI_AVX512 void layer_norm_row_avx512(const float* xr, const float* scale, const float* bias, float* yr, int64_t n,
                                     float epsilon) {
  const int64_t full = n / kLanes * kLanes;
  const __mmask16 tail = static_cast<__mmask16>((1u << (n - full)) - 1);
  // f(j, mask) over the row's vectors into four partial sums.
  auto reduce = [&](auto&& f) HI_AVX512 {
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    int64_t j = 0;
    for (; j + 4 * kLanes <= full; j += 4 * kLanes) {
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u) acc[u] = _mm512_add_ps(acc[u], f(j + u * kLanes, __mmask16(0xFFFF)));
    }
    for (; j < full; j += kLanes) acc[0] = _mm512_add_ps(acc[0], f(j, __mmask16(0xFFFF)));
    if (tail) acc[1] = _mm512_add_ps(acc[1], f(full, tail));
    return sum_lanes(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
  };
  const float mean = reduce([&](int64_t j, __mmask16 m) HI_AVX512 { return _mm512_maskz_loadu_ps(m, xr + j); }) /
                     static_cast<float>(n);
  const __m512 vmean = _mm512_set1_ps(mean);
  const float sq = reduce([&](int64_t j, __mmask16 m) HI_AVX512 {
    const __m512 d = _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, xr + j), vmean);
    return _mm512_mul_ps(d, d);
  });
  const __m512 inv_std = _mm512_set1_ps(1.f / std::sqrt(sq / static_cast<float>(n) + epsilon));
  auto normalize = [&](int64_t j, __mmask16 m) HI_AVX512 {
    const __m512 t = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, xr + j), vmean), inv_std);
    const __m512 b = bias ? _mm512_maskz_loadu_ps(m, bias + j) : _mm512_setzero_ps();
    _mm512_mask_storeu_ps(yr + j, m, _mm512_fmadd_ps(t, _mm512_maskz_loadu_ps(m, scale + j), b));
  };
  for (int64_t j = 0; j < full; j += kLanes) normalize(j, __mmask16(0xFFFF));
  if (tail) normalize(full, tail);
}
#endif

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

void softmax_rows(const float* x, float* y, int64_t rows, int64_t n, const float* add, int64_t add_stride) {
#ifdef HI_HAVE_AVX512_KERNELS
  const bool avx512 = avx512_kernels_available();
#else
  const bool avx512 = false;
#endif
  parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* a = add ? add + r * add_stride : nullptr;
#ifdef HI_HAVE_AVX512_KERNELS
      if (avx512) {
        softmax_row_avx512(x + r * n, a, y + r * n, n);
        continue;
      }
#endif
      softmax_row(x + r * n, a, y + r * n, n);
    }
  });
}

void activate_in_place(float* y, int64_t n, const Activation& act) {
  if (act.kind == Activation::Kind::kNone) return;
#ifdef HI_HAVE_AVX512_KERNELS
  const bool avx512 = avx512_kernels_available() && vector_activation_supported(act);
#else
  const bool avx512 = false;
#endif
  const bool avx2 = !avx512 && avx2_activation_available(act);
  parallel_for(n, 1 << 14, [&](int64_t i0, int64_t i1) {
#ifdef HI_HAVE_AVX512_KERNELS
    if (avx512) return activate_avx512(y + i0, i1 - i0, act);
#endif
    if (avx2) return activate_avx2(y + i0, i1 - i0, act);
    for (int64_t i = i0; i < i1; ++i) y[i] = act.apply(y[i]);
  });
}

void layer_norm_rows(const float* x, const float* scale, const float* bias, float* y, int64_t rows, int64_t n,
                     float epsilon) {
#ifdef HI_HAVE_AVX512_KERNELS
  const bool avx512 = avx512_kernels_available();
#else
  const bool avx512 = false;
#endif
  parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
#ifdef HI_HAVE_AVX512_KERNELS
      if (avx512) {
        layer_norm_row_avx512(x + r * n, scale, bias, y + r * n, n, epsilon);
        continue;
      }
#endif
      layer_norm_row(x + r * n, scale, bias, y + r * n, n, epsilon);
    }
  });
}

}  // namespace hi::cpu
