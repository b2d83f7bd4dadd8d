#include "backends/cpu/kernels/packed_gemm.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "backends/cpu/kernels/avx512_util.h"

namespace hi::cpu {

namespace {

// pack's general case, column by column (a 1x1 convolution's [O, C] weights, attention's K^T).
void pack_strided_columns(const float* src, int64_t k_real, int64_t n, int64_t k_stride, int64_t n_stride, float scale,
                          int64_t k, int64_t vectors, float* w) {
  for (int64_t o = 0; o < vectors * kLanes; ++o) {
    float* column = w + (o / kLanes) * k * kLanes + o % kLanes;
    const int64_t rows = o < n ? k_real : 0;
    for (int64_t i = 0; i < rows; ++i) column[i * kLanes] = src[i * k_stride + o * n_stride] * scale;
    for (int64_t i = rows; i < k; ++i) column[i * kLanes] = 0.f;
  }
}

#ifdef HI_HAVE_AVX512_KERNELS
// pack_strided_columns where each column's k values are contiguous (k_stride 1: attention's K
// read as K^T, a 1x1 convolution's [O, C]): 16 columns x 16 rows at a time, loaded as rows of
// src and transposed in registers (3x faster than the element loop for a 64 x 128 head).
HI_AVX512 void pack_transposed_columns(const float* src, int64_t k_real, int64_t n, int64_t n_stride, float scale,
                                       int64_t k, int64_t vectors, float* w) {
  const __m512 s = _mm512_set1_ps(scale);
  for (int64_t v = 0; v < vectors; ++v)
    for (int64_t i0 = 0; i0 < k; i0 += kLanes) {
      const int64_t rows = std::min<int64_t>(kLanes, k_real - i0);  // real k rows in this chunk
      const __mmask16 row_mask = rows <= 0 ? 0 : rows >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << rows) - 1);
      __m512 r[kLanes];
#pragma GCC unroll 16
      for (int64_t l = 0; l < kLanes; ++l) {
        const int64_t o = v * kLanes + l;
        r[l] = o < n ? _mm512_maskz_mul_ps(row_mask, _mm512_maskz_loadu_ps(row_mask, src + o * n_stride + i0), s)
                     : _mm512_setzero_ps();
      }
      transpose16x16(r);
      const int64_t stored = std::min<int64_t>(kLanes, k - i0);
#pragma GCC unroll 16
      for (int64_t i = 0; i < stored; ++i) _mm512_storeu_ps(w + (v * k + i0 + i) * kLanes, r[i]);
    }
}
#endif

}  // namespace

void PackedWeights::pack(const float* src, int64_t k_real, int64_t k_padded, int64_t n, int64_t k_stride,
                         int64_t n_stride, float scale, const float* b) {
  k = k_padded;
  vectors = round_up(n, kLanes) / kLanes;
  // Every element written once (FusedAttention packs each head's K and V on every run): the
  // values, and zeros in the padding rows and columns.
  w.resize(static_cast<size_t>(vectors * k * kLanes));
  if (n_stride == 1) {
    // Rows of src contiguous (a MatMul's B, attention's V): 16 consecutive floats per (vector, row).
    for (int64_t v = 0; v < vectors; ++v) {
      const int64_t lanes = std::min<int64_t>(kLanes, n - v * kLanes);
      for (int64_t i = 0; i < k; ++i) {
        float* dst = w.data() + (v * k + i) * kLanes;
        const int64_t copied = i < k_real ? lanes : 0;
        for (int64_t j = 0; j < copied; ++j) dst[j] = src[i * k_stride + v * kLanes + j] * scale;
        for (int64_t j = copied; j < kLanes; ++j) dst[j] = 0.f;
      }
    }
  } else {
#ifdef HI_HAVE_AVX512_KERNELS
    if (k_stride == 1 && avx512_kernels_available()) {
      pack_transposed_columns(src, k_real, n, n_stride, scale, k, vectors, w.data());
    } else {
      pack_strided_columns(src, k_real, n, k_stride, n_stride, scale, k, vectors, w.data());
    }
#else
    pack_strided_columns(src, k_real, n, k_stride, n_stride, scale, k, vectors, w.data());
#endif
  }
  bias.assign(static_cast<size_t>(vectors * kLanes), 0.f);
  if (b) std::copy(b, b + n, bias.begin());
}

void PackedWeights::pack_rows(const float* weights, const float* b, int64_t n, int64_t k_real, int64_t k_padded) {
  pack(weights, k_real, k_padded, n, 1, k_real, 1.f, b);
}

void PackedWeights::pack_columns(const float* weights, const float* b, int64_t k_rows, int64_t n) {
  pack(weights, k_rows, k_rows, n, n, 1, 1.f, b);
}

#ifdef HI_HAVE_AVX512_KERNELS

namespace {

struct TileArgs {
  const float* a;  // rows of k floats, lda apart
  int64_t lda;
  const float* w;  // the tile's first weight vector; the next one w_stride floats on
  int64_t w_stride, k;
  const float* bias;
  float* c;
  int64_t ldc;
  const float* z;  // residual rows (or null), ldz apart
  int64_t ldz;
  __mmask16 last_mask;  // lanes written in the tile's last vector
  Activation act;
  bool first, last;  // the first pass over k starts from bias (+ Z), the last applies act
};

// One pass over k rows of C[M, NV * 16] = act(A[M, k] W[k, NV * 16] + bias (+ Z)), accumulators
// in registers: the first pass starts from bias (+ Z), later ones from what C holds, and the last
// applies the activation. Z is read before C's tile is first written, so Z may be C itself.
template <int M, int NV>
HI_AVX512 void gemm_tile(const TileArgs& t) {
  __m512 acc[M][NV];
#pragma GCC unroll 4
  for (int j = 0; j < NV; ++j) {
    const __mmask16 mask = j == NV - 1 ? t.last_mask : __mmask16(0xFFFF);
    const __m512 b = _mm512_loadu_ps(t.bias + j * kLanes);
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i) {
      if (!t.first) acc[i][j] = _mm512_maskz_loadu_ps(mask, t.c + i * t.ldc + j * kLanes);
      else if (t.z) acc[i][j] = _mm512_add_ps(b, _mm512_maskz_loadu_ps(mask, t.z + i * t.ldz + j * kLanes));
      else acc[i][j] = b;
    }
  }
  for (int64_t kk = 0; kk < t.k; ++kk) {
    __m512 wv[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) wv[j] = _mm512_loadu_ps(t.w + j * t.w_stride + kk * kLanes);
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i) {
      const __m512 av = _mm512_set1_ps(t.a[i * t.lda + kk]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) acc[i][j] = _mm512_fmadd_ps(av, wv[j], acc[i][j]);
    }
  }
#pragma GCC unroll 12
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
      const __mmask16 mask = j == NV - 1 ? t.last_mask : __mmask16(0xFFFF);
      _mm512_mask_storeu_ps(t.c + i * t.ldc + j * kLanes, mask, t.last ? activate(acc[i][j], t.act) : acc[i][j]);
    }
  }
}

template <int M, int NV>
struct Tile {
  static constexpr auto fn = &gemm_tile<M, NV>;
};

// k is taken kDepth rows at a time, every tile of C per pass: a pass's weights for 4 vectors
// (32 KiB) stay in the L1 cache across the row tiles instead of streaming from L2 for each
// (measured on an Intel Xeon, two threads: 1.1-1.15x on products with k of 256 and more).
constexpr int64_t kDepth = 128;

}  // namespace

void packed_gemm(const float* a, int64_t lda, int64_t m, const WeightSlice& w, int64_t n, float* c, int64_t ldc,
                 const float* z, int64_t ldz, const Activation& act) {
  for (int64_t k0 = 0; k0 == 0 || k0 < w.k; k0 += kDepth) {
    const int64_t depth = std::min(kDepth, w.k - k0);
    walk_tiles(m, n, [&](int64_t v0, int nv, int64_t last_lanes, int64_t r0, int rows) {
      TileArgs t{};
      t.a = a + r0 * lda + k0;
      t.lda = lda;
      t.w = w.w + v0 * w.w_stride + k0 * kLanes;
      t.w_stride = w.w_stride;
      t.k = depth;
      t.bias = w.bias + v0 * kLanes;
      t.c = c + r0 * ldc + v0 * kLanes;
      t.ldc = ldc;
      t.z = z ? z + r0 * ldz + v0 * kLanes : nullptr;
      t.ldz = ldz;
      t.last_mask = __mmask16((1u << last_lanes) - 1);
      t.act = act;
      t.first = k0 == 0;
      t.last = k0 + depth >= w.k;
      TileTable<Tile>::get(nv, rows)(t);
    });
  }
}

#else

// Callers check avx512_kernels_available() first, which is false in this build: reaching this is
// a bug in hipinfer, not something to compute wrong results for.
void packed_gemm(const float*, int64_t, int64_t, const WeightSlice&, int64_t, float*, int64_t, const float*, int64_t,
                 const Activation&) {
  std::fprintf(stderr, "hipinfer: internal error: packed_gemm called in a build without AVX-512 kernels\n");
  std::abort();
}

#endif

}  // namespace hi::cpu
