// Shared by the own AVX-512 kernels (inverted_residual.cc, image_conv.cc): the attribute that
// compiles a function for AVX-512 inside a library built for baseline x86-64, the CPU check that
// must pass before calling one, and the vector forms of the activations they fuse.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "cpu/kernels.h"

// -DHI_NO_AVX512_KERNELS builds without them (the paths every other CPU takes).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(HI_NO_AVX512_KERNELS)
#include <immintrin.h>
#define HI_HAVE_AVX512_KERNELS 1
#define HI_AVX512 __attribute__((target("avx512f")))
// The bfloat16 kernels (cpu/packed_gemm_bf16.h): every CPU with AVX512_BF16 has BW and VL too.
#define HI_AVX512_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#endif

namespace hi::cpu {

// True when the CPU runs the own AVX-512 kernels.
inline bool avx512_kernels_available() {
#ifdef HI_HAVE_AVX512_KERNELS
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

// The activations the own kernels apply in registers: all but HardSigmoid, HardSwish, LeakyRelu.
inline bool vector_activation_supported(const Activation& act) {
  switch (act.kind) {
    case Activation::Kind::kNone:
    case Activation::Kind::kRelu:
    case Activation::Kind::kClip:
    case Activation::Kind::kSigmoid:
    case Activation::Kind::kTanh:
    case Activation::Kind::kGelu:
    case Activation::Kind::kGeluTanh: return true;
    default: return false;
  }
}

constexpr int64_t kLanes = 16;  // floats in a 512-bit vector
inline int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

#ifdef HI_HAVE_AVX512_KERNELS
// exp(x) to about 2 ulp: x = n ln2 + r with |r| <= ln2 / 2, a degree-6 polynomial for e^r, 2^n by
// scalef. Below -87 it gives 0 (the float range ends there), above 88 infinity.
HI_AVX512 inline __m512 exp512(__m512 x) {
  constexpr __mmask16 all = 0xFFFF;
  x = _mm512_maskz_max_ps(all, _mm512_maskz_min_ps(all, x, _mm512_set1_ps(88.f)), _mm512_set1_ps(-87.f));
  const __m512 n = _mm512_maskz_roundscale_ps(all, _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.42860682030941723e-6f), r);
  __m512 p = _mm512_set1_ps(1.f / 720.f);
  for (float c : {1.f / 120.f, 1.f / 24.f, 1.f / 6.f, 0.5f, 1.f, 1.f}) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
  return _mm512_maskz_scalef_ps(all, p, n);
}

// erf(x) to about 2e-7 absolute (Abramowitz and Stegun 7.1.26 with the sign restored).
HI_AVX512 inline __m512 erf512(__m512 x) {
  constexpr __mmask16 all = 0xFFFF;
  const __m512i sign_bit = _mm512_set1_epi32(INT32_MIN);
  const __m512 sign = _mm512_castsi512_ps(_mm512_maskz_and_epi32(all, _mm512_castps_si512(x), sign_bit));
  const __m512 ax = _mm512_castsi512_ps(_mm512_maskz_andnot_epi32(all, sign_bit, _mm512_castps_si512(x)));
  const __m512 t = _mm512_div_ps(_mm512_set1_ps(1.f), _mm512_fmadd_ps(_mm512_set1_ps(0.3275911f), ax, _mm512_set1_ps(1.f)));
  __m512 p = _mm512_set1_ps(1.061405429f);
  for (float c : {-1.453152027f, 1.421413741f, -0.284496736f, 0.254829592f}) p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(c));
  p = _mm512_mul_ps(p, t);
  const __m512 e = exp512(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_mul_ps(ax, ax)));
  const __m512 y = _mm512_fnmadd_ps(p, e, _mm512_set1_ps(1.f));  // 1 - p e^(-x^2)
  return _mm512_castsi512_ps(_mm512_maskz_or_epi32(all, _mm512_castps_si512(y), _mm512_castps_si512(sign)));
}

// tanh(x) = 1 - 2 / (e^(2x) + 1), exact at the limits (e^(2x) overflows to infinity: 1).
HI_AVX512 inline __m512 tanh512(__m512 x) {
  const __m512 e = exp512(_mm512_add_ps(x, x));
  return _mm512_sub_ps(_mm512_set1_ps(1.f), _mm512_div_ps(_mm512_set1_ps(2.f), _mm512_add_ps(e, _mm512_set1_ps(1.f))));
}

// The maskz forms with every lane set: GCC 12 warns about the plain forms' undefined passthrough.
HI_AVX512 inline __m512 activate(__m512 v, const Activation& a) {
  constexpr __mmask16 all = 0xFFFF;
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.f);
  switch (a.kind) {
    case Activation::Kind::kRelu: return _mm512_maskz_max_ps(all, v, _mm512_setzero_ps());
    case Activation::Kind::kClip:
      return _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, v, _mm512_set1_ps(a.alpha)), _mm512_set1_ps(a.beta));
    case Activation::Kind::kSigmoid:
      return _mm512_div_ps(one, _mm512_add_ps(one, exp512(_mm512_sub_ps(_mm512_setzero_ps(), v))));
    case Activation::Kind::kTanh: return tanh512(v);
    case Activation::Kind::kGelu:  // 0.5 x (1 + erf(x / sqrt 2))
      return _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, erf512(_mm512_mul_ps(v, _mm512_set1_ps(0.70710678118654752f)))));
    case Activation::Kind::kGeluTanh: {  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
      const __m512 inner = _mm512_mul_ps(_mm512_set1_ps(0.7978845608028654f),
                                         _mm512_fmadd_ps(_mm512_mul_ps(_mm512_set1_ps(0.044715f), v), _mm512_mul_ps(v, v), v));
      return _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, tanh512(inner)));
    }
    default: return v;  // kNone (the others are refused by vector_activation_supported)
  }
}
#endif

}  // namespace hi::cpu
