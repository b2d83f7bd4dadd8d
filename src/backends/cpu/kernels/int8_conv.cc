// Quantized convolutions (QLinearConv's arithmetic, channels-last) on AVX512_VNNI: each output
// pixel's receptive field, taps x C uint8 values, gathered per block of 48 rows (the padding
// filled with x's zero point, so it contributes nothing), times the int8 weights packed once as
// [O / 16][k / 4][16][4], four k per vpdpbusd into int32. The zero points come out of the sum as
// a per-channel offset, bias - x_zero_point x (column sum of the weights); the epilogue
// requantizes as the reference does: round half to even of the int32 sum times the float32
// multiplier x_scale * w_scale / y_scale, in double, plus y's zero point, saturated (a fused
// Relu raises the floor to the zero point). int8 inputs are read as uint8 with 128 added to
// them and to their zero point. Bit-identical to the reference kernel (tests/cpu).
#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/avx512_util.h"
#include "backends/cpu/kernels/packed_gemm.h"
#include "core/threading.h"

namespace hi::cpu {

#ifndef HI_HAVE_AVX512_KERNELS

bool int8_kernels_available() { return false; }
std::unique_ptr<QuantizedConvKernel> make_int8_conv_kernel(const QuantizedConvParams&) { return nullptr; }

#else

#define HI_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))

bool int8_kernels_available() {
  return avx512_kernels_available() && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
}

namespace {

struct TileArgs {
  const uint8_t* a;  // rows of k bytes, lda apart
  int64_t lda;
  const int8_t* w;  // the tile's first weight panel; the next w_stride bytes on
  int64_t w_stride, k;
  const int32_t* offset;     // per column: bias - x_zero_point * column sum
  const double* multiplier;  // per column
  uint8_t* c;                // 8-bit outputs, ldc apart
  int64_t ldc;
  double zero_point, lo, hi;
  __mmask16 last_mask;
};

// Eight int32 sums to 8-bit codes (as int32): round half to even of sum x multiplier in double,
// plus the zero point, saturated to [lo, hi].
// (The maskz_ forms with every lane set: GCC 12 warns that the unmasked ones read an undefined
// vector.)
HI_AVX512_VNNI inline __m256i requantize(__m256i v, const double* mult, __m512d zp, __m512d lo, __m512d hi) {
  constexpr __mmask8 all = 0xFF;
  __m512d x = _mm512_mul_pd(_mm512_maskz_cvtepi32_pd(all, v), _mm512_loadu_pd(mult));
  x = _mm512_add_pd(_mm512_maskz_roundscale_pd(all, x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), zp);
  return _mm512_maskz_cvtpd_epi32(all, _mm512_maskz_min_pd(all, _mm512_maskz_max_pd(all, x, lo), hi));
}

// acc += four u8 x s8 products per int32 lane. As inline assembly: with the intrinsic GCC 12
// computes every sum into a scratch register and moves it to the accumulator and back (two
// moves per vpdpbusd, and spills of the 6x4 tile's accumulators: half the kernel's time).
HI_AVX512_VNNI inline void dot_accumulate(__m512i& acc, __m512i a, __m512i w) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(w));
}

template <int M, int NV>
HI_AVX512_VNNI void int8_tile(const TileArgs& t) {
  __m512i acc[M][NV];
#pragma GCC unroll 12
  for (int i = 0; i < M; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) acc[i][j] = _mm512_setzero_si512();
  for (int64_t kk = 0; kk < t.k; kk += 4) {
    __m512i wv[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) wv[j] = _mm512_loadu_si512(t.w + j * t.w_stride + kk * kLanes);
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i) {
      int32_t quad;
      std::memcpy(&quad, t.a + i * t.lda + kk, sizeof quad);
      const __m512i av = _mm512_set1_epi32(quad);
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) dot_accumulate(acc[i][j], av, wv[j]);
    }
  }
  const __m512d zp = _mm512_set1_pd(t.zero_point), lo = _mm512_set1_pd(t.lo), hi = _mm512_set1_pd(t.hi);
#pragma GCC unroll 12
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
      const __mmask16 mask = j == NV - 1 ? t.last_mask : __mmask16(0xFFFF);
      const __m512i v = _mm512_add_epi32(acc[i][j], _mm512_loadu_si512(t.offset + j * kLanes));
      const __m256i low = requantize(_mm512_maskz_extracti64x4_epi64(0xF, v, 0), t.multiplier + j * kLanes, zp, lo, hi);
      const __m256i high =
          requantize(_mm512_maskz_extracti64x4_epi64(0xF, v, 1), t.multiplier + j * kLanes + 8, zp, lo, hi);
      // Codes are in range, so narrowing each int32 to its low byte is exact.
      const __m128i bytes =
          _mm_unpacklo_epi64(_mm256_maskz_cvtepi32_epi8(0xFF, low), _mm256_maskz_cvtepi32_epi8(0xFF, high));
      _mm_mask_storeu_epi8(t.c + i * t.ldc + j * kLanes, mask, bytes);
    }
  }
}

template <int M, int NV>
struct Tile {
  static constexpr auto fn = &int8_tile<M, NV>;
};

class Int8ConvKernel final : public QuantizedConvKernel {
 public:
  explicit Int8ConvKernel(const QuantizedConvParams& q) : q_(q) {
    const ConvGeometry& g = q.geometry;
    c_ = g.in_channels;
    o_ = g.out_channels;
    cp_ = (c_ + 3) / 4 * 4;  // each tap's channels in whole quads: a quad never spans two taps
    taps_ = g.kernel[0] * g.kernel[1];
    k_ = taps_ * cp_;
    vectors_ = (o_ + kLanes - 1) / kLanes;
    pixels_ = g.batch * g.out[0] * g.out[1];
    x_zero_point_ = q.x_signed ? q.x_zero_point + 128 : q.x_zero_point;
    contiguous_ = !q.x_signed && cp_ == c_ && taps_ == 1 && g.strides[0] == 1 && g.strides[1] == 1 &&
                  g.pads_begin[0] == 0 && g.pads_begin[1] == 0 && g.in[0] == g.out[0] && g.in[1] == g.out[1];
    // Weights [O, C, kh, kw] as [vectors][k / 4][16][4]: column o, row k = tap x cp + c.
    w_.assign(static_cast<size_t>(vectors_ * k_ * kLanes), 0);
    std::vector<uint32_t> sums(static_cast<size_t>(vectors_ * kLanes), 0);
    for (int64_t o = 0; o < o_; ++o)
      for (int64_t c = 0; c < c_; ++c)
        for (int64_t t = 0; t < taps_; ++t) {
          const int8_t v = q.weights[(o * c_ + c) * taps_ + t];
          const int64_t k = t * cp_ + c;
          w_[static_cast<size_t>((o / kLanes) * k_ * kLanes + (k / 4) * kLanes * 4 + (o % kLanes) * 4 + k % 4)] = v;
          sums[static_cast<size_t>(o)] += static_cast<uint32_t>(static_cast<int32_t>(v));
        }
    // Unsigned arithmetic: the int32 sums wrap as the reference's accumulation does.
    offset_.assign(sums.size(), 0);
    multiplier_.assign(sums.size(), 0.0);
    for (int64_t o = 0; o < o_; ++o) {
      const uint32_t bias = q.bias ? static_cast<uint32_t>(q.bias[o]) : 0u;
      offset_[static_cast<size_t>(o)] =
          static_cast<int32_t>(bias - static_cast<uint32_t>(x_zero_point_) * sums[static_cast<size_t>(o)]);
      multiplier_[static_cast<size_t>(o)] = static_cast<double>(q.multipliers[static_cast<size_t>(o)]);
    }
    lo_ = q.y_signed ? -128 : 0;
    hi_ = q.y_signed ? 127 : 255;
    if (q.relu) lo_ = std::max<double>(lo_, q.y_zero_point);
    q_.weights = nullptr;  // packed above; the caller's buffers need not outlive the kernel
    q_.bias = nullptr;
  }

  Status run(const void* x, void* y) const override {
    const auto* xb = static_cast<const uint8_t*>(x);
    auto* yb = static_cast<uint8_t*>(y);
    run_made_rows<uint8_t>(
        ProductBlocks(pixels_, k_, o_), pixels_, k_, contiguous_ ? xb : nullptr,
        [&](int64_t r0, int64_t rows, uint8_t* dst) { gather(xb, r0, rows, dst); },
        [&](const uint8_t* a, const ProductBlocks::Block& b) { product(a, b, yb); });
    return Status::ok();
  }

  std::string describe() const override { return "hipinfer int8 implicit product (AVX512_VNNI)"; }

 private:
  void product(const uint8_t* a, const ProductBlocks::Block& b, uint8_t* y) const {
    walk_tiles(b.rows, b.cols, [&](int64_t v0, int nv, int64_t last_lanes, int64_t r0, int rows) {
      const int64_t col = b.c0 + v0 * kLanes;
      TileArgs t{};
      t.a = a + r0 * k_;
      t.lda = k_;
      t.w = w_.data() + (col / kLanes) * k_ * kLanes;
      t.w_stride = k_ * kLanes;
      t.k = k_;
      t.offset = offset_.data() + col;
      t.multiplier = multiplier_.data() + col;
      t.c = y + (b.r0 + r0) * o_ + col;
      t.ldc = o_;
      t.zero_point = q_.y_zero_point;
      t.lo = lo_;
      t.hi = hi_;
      t.last_mask = __mmask16((1u << last_lanes) - 1);
      TileTable<Tile>::get(nv, rows)(t);
    });
  }

  // Rows [r0, r0 + rows) of the implicit matrix into dst (k_ bytes each): every tap's C inputs
  // (int8 ones flipped to uint8), x's zero point where the tap falls in the padding, zeros in the
  // channel padding (their weights are zero).
  void gather(const uint8_t* x, int64_t r0, int64_t rows, uint8_t* dst) const {
    const ConvGeometry& g = q_.geometry;
    const int64_t h = g.in[0], w = g.in[1], oh = g.out[0], ow = g.out[1];
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t p = r0 + r, n = p / (oh * ow), oy = p / ow % oh, ox = p % ow;
      uint8_t* row = dst + r * k_;
      for (int64_t ky = 0; ky < g.kernel[0]; ++ky) {
        const int64_t iy = oy * g.strides[0] - g.pads_begin[0] + ky * g.dilations[0];
        for (int64_t kx = 0; kx < g.kernel[1]; ++kx) {
          const int64_t ix = ox * g.strides[1] - g.pads_begin[1] + kx * g.dilations[1];
          uint8_t* tap = row + (ky * g.kernel[1] + kx) * cp_;
          if (iy < 0 || iy >= h || ix < 0 || ix >= w) {
            std::memset(tap, x_zero_point_, static_cast<size_t>(c_));
          } else {
            const uint8_t* src = x + ((n * h + iy) * w + ix) * c_;
            if (q_.x_signed)
              for (int64_t c = 0; c < c_; ++c) tap[c] = static_cast<uint8_t>(src[c] ^ 0x80u);
            else std::memcpy(tap, src, static_cast<size_t>(c_));
          }
          std::memset(tap + c_, 0, static_cast<size_t>(cp_ - c_));
        }
      }
    }
  }

  QuantizedConvParams q_;
  int64_t c_ = 0, o_ = 0, cp_ = 0, taps_ = 0, k_ = 0, vectors_ = 0, pixels_ = 0;
  int32_t x_zero_point_ = 0;
  double lo_ = 0, hi_ = 255;
  bool contiguous_ = false;
  AlignedVector<int8_t> w_;
  AlignedVector<int32_t> offset_;
  std::vector<double> multiplier_;
};

}  // namespace

std::unique_ptr<QuantizedConvKernel> make_int8_conv_kernel(const QuantizedConvParams& q) {
  const ConvGeometry& g = q.geometry;
  if (!int8_kernels_available() || g.kernel.size() != 2 || g.groups != 1 || !g.channels_last || g.input_channels_first)
    return nullptr;
  if (g.batch <= 0 || g.in_channels <= 0 || g.out_channels <= 0 || g.out[0] <= 0 || g.out[1] <= 0) return nullptr;
  if (!q.weights || static_cast<int64_t>(q.multipliers.size()) != g.out_channels) return nullptr;
  return std::make_unique<Int8ConvKernel>(q);
}

#endif

}  // namespace hi::cpu
