#include "backends/cpu/kernels/avx2_activation.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HI_HAVE_AVX2_ACTIVATION 1
#define HI_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace hi::cpu {

#ifdef HI_HAVE_AVX2_ACTIVATION
namespace {

// exp(x), x clamped to [-87, 88] (NaN stays NaN: min and max return their second operand then):
// x = n ln2 + r with |r| <= ln2 / 2, a degree-6 polynomial for e^r, and 2^n built in the exponent
// bits (n lies in [-126, 127] after the clamp, so 2^n is a normal float).
HI_AVX2 inline __m256 exp256(__m256 x) {
  x = _mm256_max_ps(_mm256_set1_ps(-87.f), _mm256_min_ps(_mm256_set1_ps(88.f), x));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.42860682030941723e-6f), r);
  __m256 p = _mm256_set1_ps(1.f / 720.f);
  for (float c : {1.f / 120.f, 1.f / 24.f, 1.f / 6.f, 0.5f, 1.f, 1.f}) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(c));
  const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

HI_AVX2 inline __m256 sigmoid256(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.f);
  return _mm256_div_ps(one, _mm256_add_ps(one, exp256(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}

// tanh(x) = 1 - 2 / (e^(2x) + 1); below |x| = 0.4, where that cancels, the Taylor series to x^13.
HI_AVX2 inline __m256 tanh256(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.f);
  const __m256 far =
      _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.f), _mm256_add_ps(exp256(_mm256_add_ps(x, x)), one)));
  const __m256 x2 = _mm256_mul_ps(x, x);
  __m256 p = _mm256_set1_ps(21844.f / 6081075.f);
  for (float c : {-1382.f / 155925.f, 62.f / 2835.f, -17.f / 315.f, 2.f / 15.f, -1.f / 3.f})
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(c));
  const __m256 near = _mm256_fmadd_ps(_mm256_mul_ps(x, x2), p, x);
  const __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.f), x);
  return _mm256_blendv_ps(far, near, _mm256_cmp_ps(ax, _mm256_set1_ps(0.4f), _CMP_LT_OQ));
}

template <bool kSigmoid>
HI_AVX2 inline __m256 f(__m256 v) {
  return kSigmoid ? sigmoid256(v) : tanh256(v);
}

template <bool kSigmoid>
HI_AVX2 void activate_lanes(float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, f<kSigmoid>(_mm256_loadu_ps(y + i)));
  if (i < n) {  // the tail through a vector of its own
    float tail[8] = {};
    for (int64_t j = i; j < n; ++j) tail[j - i] = y[j];
    _mm256_storeu_ps(tail, f<kSigmoid>(_mm256_loadu_ps(tail)));
    for (int64_t j = i; j < n; ++j) y[j] = tail[j - i];
  }
}

}  // namespace
#endif

bool avx2_activation_available(const Activation& act) {
#ifdef HI_HAVE_AVX2_ACTIVATION
  static const bool cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return cpu && (act.kind == Activation::Kind::kSigmoid || act.kind == Activation::Kind::kTanh);
#else
  (void)act;
  return false;
#endif
}

void activate_avx2(float* y, int64_t n, const Activation& act) {
#ifdef HI_HAVE_AVX2_ACTIVATION
  if (act.kind == Activation::Kind::kSigmoid) activate_lanes<true>(y, n);
  else activate_lanes<false>(y, n);
#else
  (void)y;
  (void)n;
  (void)act;
#endif
}

}  // namespace hi::cpu
