#include "backends/cpu/kernels/packed_gemm_bf16.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "backends/cpu/kernels/avx512_util.h"
#include "backends/cpu/kernels/packed_gemm.h"

namespace hi::cpu {

uint16_t to_bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

float from_bf16(uint16_t x) {
  const uint32_t u = static_cast<uint32_t>(x) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

void PackedWeightsBf16::pack(const float* src, int64_t k_real, int64_t n, int64_t k_stride, int64_t n_stride,
                             const float* b) {
  k = (k_real + 1) / 2 * 2;
  vectors = (n + kVector - 1) / kVector;
  w.resize(static_cast<size_t>(vectors * k * kVector));
  for (int64_t o = 0; o < vectors * kVector; ++o) {
    // Column o: vector o / 16, lane o % 16; row i at pair i / 2, slot i % 2.
    uint16_t* column = w.data() + (o / kVector) * k * kVector + (o % kVector) * 2;
    for (int64_t i = 0; i < k; ++i) {
      const bool real = o < n && i < k_real;
      column[(i / 2) * kVector * 2 + i % 2] = real ? to_bf16(src[i * k_stride + o * n_stride]) : 0;
    }
  }
  bias.assign(static_cast<size_t>(vectors * kVector), 0.f);
  if (b) std::copy(b, b + n, bias.begin());
}

#ifdef HI_HAVE_AVX512_KERNELS

bool bf16_kernels_available() {
  return avx512_kernels_available() && __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl");
}

HI_AVX512_BF16 void convert_rows_to_bf16(const float* src, int64_t lds, int64_t rows, int64_t cols, uint16_t* dst,
                                         int64_t ldd) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * lds;
    uint16_t* d = dst + r * ldd;
    for (int64_t c = 0; c < ldd; c += kLanes) {
      const int64_t have = std::clamp<int64_t>(cols - c, 0, kLanes), room = std::min<int64_t>(ldd - c, kLanes);
      const __m512 v = _mm512_maskz_loadu_ps(__mmask16((1u << have) - 1), s + c);
      _mm256_mask_storeu_epi16(d + c, __mmask16((1u << room) - 1), reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v)));
    }
  }
}

namespace {

struct TileArgs {
  const uint16_t* a;  // bfloat16 rows, lda values apart
  int64_t lda;
  const uint16_t* w;  // the tile's first weight vector panel; the next one w_stride values on
  int64_t w_stride, k;
  const float* bias;
  float* c;
  int64_t ldc;
  const float* z;
  int64_t ldz;
  __mmask16 last_mask;
  Activation act;
};

HI_AVX512_BF16 inline __m512bh broadcast_pair(const uint16_t* p) {
  int32_t pair;
  std::memcpy(&pair, p, sizeof pair);
  return reinterpret_cast<__m512bh>(_mm512_set1_epi32(pair));
}

// C[M, NV * 16] = act(A[M, k] W[k, NV * 16] + bias (+ Z)): each vdpbf16ps adds a pair of k.
template <int M, int NV>
HI_AVX512_BF16 void gemm_tile(const TileArgs& t) {
  __m512 acc[M][NV];
#pragma GCC unroll 4
  for (int j = 0; j < NV; ++j) {
    const __m512 b = _mm512_loadu_ps(t.bias + j * kLanes);
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i) acc[i][j] = b;
  }
  for (int64_t kk = 0; kk < t.k; kk += 2) {
    __m512bh wv[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j)
      wv[j] = reinterpret_cast<__m512bh>(_mm512_loadu_si512(t.w + j * t.w_stride + kk * kLanes));
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i) {
      const __m512bh av = broadcast_pair(t.a + i * t.lda + kk);
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) acc[i][j] = _mm512_dpbf16_ps(acc[i][j], av, wv[j]);
    }
  }
#pragma GCC unroll 12
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
      const __mmask16 mask = j == NV - 1 ? t.last_mask : __mmask16(0xFFFF);
      __m512 v = acc[i][j];
      if (t.z) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, t.z + i * t.ldz + j * kLanes));
      _mm512_mask_storeu_ps(t.c + i * t.ldc + j * kLanes, mask, activate(v, t.act));
    }
  }
}

template <int M, int NV>
struct Tile {
  static constexpr auto fn = &gemm_tile<M, NV>;
};

}  // namespace

void packed_gemm_bf16(const uint16_t* a, int64_t lda, int64_t m, const WeightSliceBf16& w, int64_t n, float* c,
                      int64_t ldc, const float* z, int64_t ldz, const Activation& act) {
  walk_tiles(m, n, [&](int64_t v0, int nv, int64_t last_lanes, int64_t r0, int rows) {
    TileArgs t{};
    t.a = a + r0 * lda;
    t.lda = lda;
    t.w = w.w + v0 * w.w_stride;
    t.w_stride = w.w_stride;
    t.k = w.k;
    t.bias = w.bias + v0 * kLanes;
    t.c = c + r0 * ldc + v0 * kLanes;
    t.ldc = ldc;
    t.z = z ? z + r0 * ldz + v0 * kLanes : nullptr;
    t.ldz = ldz;
    t.last_mask = __mmask16((1u << last_lanes) - 1);
    t.act = act;
    TileTable<Tile>::get(nv, rows)(t);
  });
}

#else

bool bf16_kernels_available() { return false; }

// Callers check bf16_kernels_available() first, which is false in this build.
[[noreturn]] static void unavailable(const char* what) {
  std::fprintf(stderr, "hipinfer: internal error: %s called in a build without AVX-512 kernels\n", what);
  std::abort();
}
void convert_rows_to_bf16(const float*, int64_t, int64_t, int64_t, uint16_t*, int64_t) {
  unavailable("convert_rows_to_bf16");
}
void packed_gemm_bf16(const uint16_t*, int64_t, int64_t, const WeightSliceBf16&, int64_t, float*, int64_t, const float*,
                      int64_t, const Activation&) {
  unavailable("packed_gemm_bf16");
}

#endif

}  // namespace hi::cpu
