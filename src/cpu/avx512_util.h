// Shared by the own AVX-512 kernels (inverted_residual.cc, image_conv.cc): the attribute that
// compiles a function for AVX-512 inside a library built for baseline x86-64, the CPU check that
// must pass before calling one, and the vector forms of the activations they fuse.
#pragma once

#include <cstdint>

#include "cpu/kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HI_HAVE_AVX512_KERNELS 1
#define HI_AVX512 __attribute__((target("avx512f")))
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

// The activations the own kernels apply in registers.
inline bool vector_activation_supported(const Activation& act) {
  return act.kind == Activation::Kind::kNone || act.kind == Activation::Kind::kRelu || act.kind == Activation::Kind::kClip;
}

constexpr int64_t kLanes = 16;  // floats in a 512-bit vector
inline int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

#ifdef HI_HAVE_AVX512_KERNELS
// The maskz forms with every lane set: GCC 12 warns about the plain forms' undefined passthrough.
HI_AVX512 inline __m512 activate(__m512 v, const Activation& a) {
  constexpr __mmask16 all = 0xFFFF;
  if (a.kind == Activation::Kind::kRelu) return _mm512_maskz_max_ps(all, v, _mm512_setzero_ps());
  if (a.kind == Activation::Kind::kClip)
    return _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, v, _mm512_set1_ps(a.alpha)), _mm512_set1_ps(a.beta));
  return v;
}
#endif

}  // namespace hi::cpu
