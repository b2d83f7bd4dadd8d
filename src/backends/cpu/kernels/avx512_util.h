// Shared by the own AVX-512 kernels (inverted_residual.cc, image_conv.cc): the attribute that
// compiles a function for AVX-512 inside a library built for baseline x86-64, the CPU check that
// must pass before calling one, and the vector forms of the activations they fuse.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "backends/cpu/kernels/kernels.h"

// -DHI_NO_AVX512_KERNELS builds without them (the paths every other CPU takes).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(HI_NO_AVX512_KERNELS)
#include <immintrin.h>
#include <type_traits>
#define HI_HAVE_AVX512_KERNELS 1
#define HI_AVX512 __attribute__((target("avx512f")))
// The bfloat16 kernels (backends/cpu/kernels/packed_gemm_bf16.h): every CPU with AVX512_BF16 has BW and VL too.
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
// exp(x) on the lanes of `kept` (others 0) for x in [-87, 88] or NaN (NaN comes out NaN): x = n ln2
// + r with |r| <= ln2 / 2, a degree-6 polynomial for e^r, 2^n by scalef; about 2 ulp.
HI_AVX512 inline __m512 exp512_in_range(__mmask16 kept, __m512 x) {
  const __m512 n = _mm512_maskz_roundscale_ps(kept, _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                              _MM_FROUND_TO_NEAREST_INT);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.42860682030941723e-6f), r);
  __m512 p = _mm512_set1_ps(1.f / 720.f);
  for (float c : {1.f / 120.f, 1.f / 24.f, 1.f / 6.f, 0.5f, 1.f, 1.f}) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
  return _mm512_maskz_scalef_ps(kept, p, n);
}
// exp(x) for any x: clamped to [-87, 88] first (below -87 it gives e^-87, above 88 e^88).
HI_AVX512 inline __m512 exp512(__m512 x) {
  constexpr __mmask16 all = 0xFFFF;
  x = _mm512_maskz_max_ps(all, _mm512_maskz_min_ps(all, x, _mm512_set1_ps(88.f)), _mm512_set1_ps(-87.f));
  return exp512_in_range(all, x);
}

// GELU, erf form: 0.5 x (1 + erf(x / sqrt 2)). erf(x / sqrt 2) = x P(x^2) / Q(x^2) with P and Q of
// degree 5 fitted (iteratively reweighted least squares) for the least largest error on
// |x| <= 5.5437, beyond which erf is +-1 in float: 1.6e-8 in exact arithmetic, 3.7e-7 evaluated
// in float. Twenty vector instructions and no exp: 1.6x the speed of the exp-based erf it
// replaced (0.23 against 0.38 ns per element on one core of an Intel Xeon). GELU's error:
// at most 2.4e-7 relative for x > 0, 1.9e-6 absolute over N(0, 3) inputs (the exp-based form:
// 4.6e-7), within the 1e-6 + 2e-6 |y| that tests/cpu/vector_activation_test.cc holds it to.
HI_AVX512 inline __m512 gelu512(__m512 x) {
  constexpr __mmask16 all = 0xFFFF;
  const __m512 xc =
      _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, x, _mm512_set1_ps(-5.5437174f)), _mm512_set1_ps(5.5437174f));
  const __m512 s = _mm512_mul_ps(xc, xc);
  __m512 p = _mm512_set1_ps(4.495949213e-08f), q = _mm512_set1_ps(1.189606223e-06f);
  for (float c : {1.270308076e-05f, 3.418309207e-04f, 9.379338473e-03f, 6.814551353e-02f, 7.978844643e-01f})
    p = _mm512_fmadd_ps(p, s, _mm512_set1_ps(c));
  for (float c : {7.424032083e-05f, 1.896304195e-03f, 2.876906283e-02f, 2.520735860e-01f, 1.f})
    q = _mm512_fmadd_ps(q, s, _mm512_set1_ps(c));
  const __m512 erf = _mm512_div_ps(_mm512_mul_ps(xc, p), q);  // q >= 1
  const __m512 half_x = _mm512_mul_ps(_mm512_set1_ps(0.5f), x);
  // Below the clamp GELU is 0 to float precision; the fit's 3.7e-7 times x would not be. NaN kept.
  const __mmask16 above = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-5.5437174f), _CMP_NLT_UQ);
  return _mm512_maskz_fmadd_ps(above, half_x, erf, half_x);
}

// Transposes the 16x16 block held in r[0..15] (row i in r[i]) in place: four butterfly stages,
// each swapping the off-diagonal d x d blocks (d = 8, 4, 2, 1) of every 2d x 2d block with one
// two-source permute per row. Stage s's lane indices: row i (bit d clear) keeps its low half
// and takes row i + d's; row i + d takes row i's high half and keeps its own.
struct TransposeIndex {
  int32_t lo[4][16], hi[4][16];
};
constexpr TransposeIndex make_transpose_index() {
  TransposeIndex t{};
  for (int s = 0; s < 4; ++s)
    for (int j = 0, d = 8 >> s; j < 16; ++j) {
      t.lo[s][j] = (j & d) ? 16 + j - d : j;
      t.hi[s][j] = (j & d) ? 16 + j : j + d;
    }
  return t;
}
inline constexpr TransposeIndex kTransposeIndex = make_transpose_index();

// Horizontal max and sum of 16 lanes by four butterfly steps in registers: a quarter of the
// latency of storing the lanes and folding them one by one (not _mm512_reduce_*, nor the
// unmasked permute and max: GCC 12 warns inside them under -Werror). NaN as maxps treats it.
HI_AVX512 inline __m512 butterfly_lanes(__m512 v, int step) {
  const __m512i idx =
      _mm512_xor_si512(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi32(step));
  return _mm512_maskz_permutexvar_ps(0xFFFF, idx, v);
}
HI_AVX512 inline float max_lanes(__m512 v) {
  for (int step = 8; step >= 1; step /= 2) v = _mm512_maskz_max_ps(0xFFFF, v, butterfly_lanes(v, step));
  return _mm512_cvtss_f32(v);
}
HI_AVX512 inline float sum_lanes(__m512 v) {
  for (int step = 8; step >= 1; step /= 2) v = _mm512_add_ps(v, butterfly_lanes(v, step));
  return _mm512_cvtss_f32(v);
}

HI_AVX512 inline void transpose16x16(__m512* r) {
#pragma GCC unroll 4
  for (int s = 0; s < 4; ++s) {
    const int d = 8 >> s;
    const __m512i lo = _mm512_loadu_si512(kTransposeIndex.lo[s]), hi = _mm512_loadu_si512(kTransposeIndex.hi[s]);
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) {
      if (i & d) continue;
      const __m512 a = r[i], b = r[i + d];
      r[i] = _mm512_permutex2var_ps(a, lo, b);
      r[i + d] = _mm512_permutex2var_ps(a, hi, b);
    }
  }
}

// tanh(x) = 1 - 2 / (e^(2x) + 1), exact at the limits (e^(2x) overflows to infinity: 1). Below
// |x| = 0.4 that difference cancels (relative errors of 1e-3 near 1e-4, where Mish's tail lives),
// so there the Taylor series to x^13 is used: its first omitted term is under 2e-9 of tanh(x).
HI_AVX512 inline __m512 tanh512(__m512 x) {
  const __m512 e = exp512(_mm512_add_ps(x, x));
  const __m512 far =
      _mm512_sub_ps(_mm512_set1_ps(1.f), _mm512_div_ps(_mm512_set1_ps(2.f), _mm512_add_ps(e, _mm512_set1_ps(1.f))));
  const __m512 x2 = _mm512_mul_ps(x, x);
  __m512 p = _mm512_set1_ps(21844.f / 6081075.f);
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-1382.f / 155925.f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(62.f / 2835.f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-17.f / 315.f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(2.f / 15.f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-1.f / 3.f));
  const __m512 near = _mm512_fmadd_ps(_mm512_mul_ps(x, x2), p, x);
  const __m512 ax = _mm512_abs_ps(x);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.4f), _CMP_LT_OQ), far, near);
}

// The maskz forms with every lane set: GCC 12 warns about the plain forms' undefined passthrough.
template <Activation::Kind K>
HI_AVX512 inline __m512 activate_as(__m512 v, const Activation& a) {
  constexpr __mmask16 all = 0xFFFF;
  using Kind = Activation::Kind;
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.f);
  if constexpr (K == Kind::kRelu) return _mm512_maskz_max_ps(all, v, _mm512_setzero_ps());
  else if constexpr (K == Kind::kClip)
    return _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, v, _mm512_set1_ps(a.alpha)), _mm512_set1_ps(a.beta));
  else if constexpr (K == Kind::kSigmoid)
    return _mm512_div_ps(one, _mm512_add_ps(one, exp512(_mm512_sub_ps(_mm512_setzero_ps(), v))));
  else if constexpr (K == Kind::kTanh) return tanh512(v);
  else if constexpr (K == Kind::kGelu) return gelu512(v);
  else if constexpr (K == Kind::kGeluTanh) {  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    const __m512 inner =
        _mm512_mul_ps(_mm512_set1_ps(0.7978845608028654f),
                      _mm512_fmadd_ps(_mm512_mul_ps(_mm512_set1_ps(0.044715f), v), _mm512_mul_ps(v, v), v));
    return _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, tanh512(inner)));
  } else {
    return v;  // kNone (the others are refused by vector_activation_supported)
  }
}

// Calls f(std::integral_constant<Activation::Kind, K>{}) for a's kind, so that a loop over many
// vectors picks its activation once (activate_as<K> inside) instead of switching per vector.
template <typename F>
HI_AVX512 inline void with_activation_kind(const Activation& a, F&& f) {
  using Kind = Activation::Kind;
  switch (a.kind) {
    case Kind::kRelu: return f(std::integral_constant<Kind, Kind::kRelu>{});
    case Kind::kClip: return f(std::integral_constant<Kind, Kind::kClip>{});
    case Kind::kSigmoid: return f(std::integral_constant<Kind, Kind::kSigmoid>{});
    case Kind::kTanh: return f(std::integral_constant<Kind, Kind::kTanh>{});
    case Kind::kGelu: return f(std::integral_constant<Kind, Kind::kGelu>{});
    case Kind::kGeluTanh: return f(std::integral_constant<Kind, Kind::kGeluTanh>{});
    default: return f(std::integral_constant<Kind, Kind::kNone>{});
  }
}

// One vector's activation, the kind chosen per call (for epilogues that apply it to a few vectors).
HI_AVX512 inline __m512 activate(__m512 v, const Activation& a) {
  __m512 out = v;
  with_activation_kind(a, [&](auto k) HI_AVX512 { out = activate_as<decltype(k)::value>(v, a); });
  return out;
}
#endif

}  // namespace hi::cpu
